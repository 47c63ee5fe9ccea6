#ifndef ABCTL_COPENSSL_SHIM_H
#define ABCTL_COPENSSL_SHIM_H

// libcrypto from Debian's libssl-dev: X.509 chains and ECDSA signatures for App Store
// notifications (JWS ES256), HMAC-SHA256 for Stripe, RS256 for Google's tokens. Only
// non-deprecated OpenSSL 3 interfaces are used.
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/objects.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

// Macros Swift cannot import, as functions.
static inline int abctl_sk_X509_push(STACK_OF(X509) *stack, X509 *cert) { return sk_X509_push(stack, cert); }
static inline STACK_OF(X509) *abctl_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline void abctl_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
static inline int abctl_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
static inline X509 *abctl_sk_X509_value(const STACK_OF(X509) *stack, int i) { return sk_X509_value(stack, i); }
static inline int abctl_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }
// OSSL_PARAM_BLD keeps the name pointers it is given: these live as long as the program.
static inline const char *abctl_OSSL_PKEY_PARAM_RSA_N(void) { return OSSL_PKEY_PARAM_RSA_N; }
static inline const char *abctl_OSSL_PKEY_PARAM_RSA_E(void) { return OSSL_PKEY_PARAM_RSA_E; }

#endif
