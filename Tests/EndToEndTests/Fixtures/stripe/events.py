#!/usr/bin/env python3
"""Stripe events in Stripe's documented shapes (API 2025-03-31.basil, and the older invoice
fields `charge`, `payment_intent`, `subscription_details`), signed by Stripe's own library.

Usage: events.py OUT.json SECRET NOW [currency|life]

Writes a list of {name, body, header, status, type} in delivery order; `status` and `type` are
what abctl must answer (docs/Webhooks.md; `status` 422 means refused). With `currency`, the
scenario is revenue in EUR and JPY (converted by products.json's `exchange_rates`) and in SEK
(no rate: refused). With `life`, the subscription's later life (payment failures, undone
cancels, a price change, deletions for each reason). Times are days before NOW so a report at NOW counts
them; the expected report per arm is computed by hand in the test.
"""
import json
import sys

import stripe

DAY = 86400


def event(eid, etype, created, obj, previous=None):
    data = {"object": obj}
    if previous is not None:
        data["previous_attributes"] = previous
    return {"id": eid, "object": "event", "api_version": "2025-03-31.basil", "created": created, "type": etype,
            "livemode": False, "pending_webhooks": 1, "request": {"id": None, "idempotency_key": None}, "data": data}


def subscription(sid, user, status, **fields):
    obj = {"id": sid, "object": "subscription", "customer": "cus_" + sid, "status": status, "currency": "usd",
           "cancel_at_period_end": False, "canceled_at": None, "trial_start": None, "trial_end": None,
           "metadata": {"abctl_user_id": user} if user else {},
           "items": {"object": "list", "data": [{"id": "si_" + sid, "object": "subscription_item",
                                                 "price": {"id": "price_annual", "object": "price", "lookup_key": "chorus.plus.annual",
                                                           "unit_amount": 5999, "currency": "usd"}}]}}
    obj.update(fields)
    return obj


def invoice(iid, user, amount, currency, reason, paid_at, charge=None, intent=None, new_shape=True):
    obj = {"id": iid, "object": "invoice", "customer": "cus_1", "amount_paid": amount, "amount_due": amount, "currency": currency,
           "billing_reason": reason, "status": "paid", "status_transitions": {"paid_at": paid_at, "finalized_at": paid_at},
           "lines": {"object": "list", "data": [{"id": "il_" + iid, "object": "line_item", "amount": amount, "currency": currency,
                                                 "pricing": {"type": "price_details", "price_details": {"price": "price_annual", "product": "prod_1"}}}]}}
    metadata = {"abctl_user_id": user} if user else {}
    if new_shape:
        obj["parent"] = {"type": "subscription_details", "subscription_details": {"subscription": "sub_x", "metadata": metadata}}
        obj["payments"] = {"object": "list", "data": [{"id": "inpay_" + iid, "object": "invoice_payment", "status": "paid",
                                                        "payment": {"type": "payment_intent", "payment_intent": intent}}]}
    else:
        obj["subscription_details"] = {"metadata": metadata}
        obj["subscription"] = "sub_x"
        obj["charge"] = charge
        obj["payment_intent"] = intent
    return obj


def charge(cid, intent, amount, refunded, currency="usd"):
    return {"id": cid, "object": "charge", "amount": amount, "amount_captured": amount, "amount_refunded": refunded,
            "currency": currency, "payment_intent": intent, "refunded": refunded == amount, "status": "succeeded", "metadata": {}}


def scenario(now):
    t = lambda days: now - days * DAY
    out = []

    def add(name, body, status, etype=None):
        out.append({"name": name, "body": json.dumps(body, separators=(",", ":")), "status": status, "type": etype})

    # a1 (arm "trial-7d"): a 7-day trial, converted, renewed, the renewal refunded in two parts.
    add("a1 trial", event("evt_a1_1", "customer.subscription.created", t(9),
                          subscription("sub_a1", "a1", "trialing", trial_start=t(9), trial_end=t(2))), "stored", "trial_started")
    add("a1 trial invoice (free)", event("evt_a1_2", "invoice.paid", t(9), invoice("in_a1_0", "a1", 0, "usd", "subscription_create", t(9))),
        "ignored")
    add("a1 converted", event("evt_a1_3", "invoice.paid", t(2), invoice("in_a1_1", "a1", 999, "usd", "subscription_cycle", t(2),
                                                                       intent="pi_a1_1")), "stored", "converted")
    add("a1 conversion retried", event("evt_a1_3", "invoice.paid", t(2), invoice("in_a1_1", "a1", 999, "usd", "subscription_cycle", t(2),
                                                                                intent="pi_a1_1")), "duplicate", "converted")
    add("a1 renewed", event("evt_a1_4", "invoice.paid", t(1), invoice("in_a1_2", "a1", 999, "usd", "subscription_cycle", t(1),
                                                                     charge="ch_a1_2", intent="pi_a1_2", new_shape=False)), "stored", "renewed")
    add("a1 partial refund", event("evt_a1_5", "charge.refunded", t(0.5), charge("ch_a1_2", "pi_a1_2", 999, 500)), "stored", "refunded")
    # Stripe's retry of a delivered refund answers what was first stored (the ledger counts it once either way).
    add("a1 partial refund retried", event("evt_a1_5", "charge.refunded", t(0.5), charge("ch_a1_2", "pi_a1_2", 999, 500)), "duplicate", "refunded")
    add("a1 rest refunded", event("evt_a1_6", "charge.refunded", t(0.4), charge("ch_a1_2", "pi_a1_2", 999, 999)), "stored", "refunded")
    add("a1 refund replayed under a new id", event("evt_a1_7", "charge.refunded", t(0.3), charge("ch_a1_2", "pi_a1_2", 999, 999)), "ignored")

    # a2 (arm "trial-7d"): paid at once, then turned auto-renew off.
    add("a2 purchased", event("evt_a2_1", "invoice.paid", t(5), invoice("in_a2_1", "a2", 5999, "usd", "subscription_create", t(5),
                                                                       intent="pi_a2_1")), "stored", "purchased")
    add("a2 cancel at period end", event("evt_a2_2", "customer.subscription.updated", t(4),
                                         subscription("sub_a2", "a2", "active", cancel_at_period_end=True, canceled_at=t(4)),
                                         previous={"cancel_at_period_end": False}), "stored", "cancelled")
    add("a2 other update", event("evt_a2_3", "customer.subscription.updated", t(3.5),
                                 subscription("sub_a2", "a2", "active", cancel_at_period_end=True, canceled_at=t(4)),
                                 previous={"metadata": {}}), "ignored")

    # b1 (arm "trial-3d"): paid at once, refunded whole, found through the payment intent.
    add("b1 purchased", event("evt_b1_1", "invoice.paid", t(6), invoice("in_b1_1", "b1", 2999, "usd", "subscription_create", t(6),
                                                                       intent="pi_b1_1")), "stored", "purchased")
    add("b1 refunded via payment intent", event("evt_b1_2", "charge.refunded", t(5), charge("ch_b1_unseen", "pi_b1_1", 2999, 2999)),
        "stored", "refunded")

    # b2 (arm "trial-3d"): a 3-day trial, cancelled at once.
    add("b2 trial", event("evt_b2_1", "customer.subscription.created", t(3),
                          subscription("sub_b2", "b2", "trialing", trial_start=t(3), trial_end=t(0))), "stored", "trial_started")
    add("b2 deleted", event("evt_b2_2", "customer.subscription.deleted", t(2.9),
                            subscription("sub_b2", "b2", "canceled", canceled_at=t(2.9), ended_at=t(2.9))), "stored", "expired")

    # Verified, but nothing to store.
    add("no abctl_user_id", event("evt_nouser", "invoice.paid", t(2), invoice("in_nouser", None, 999, "usd", "subscription_create", t(2),
                                                                            intent="pi_nouser")), "ignored")
    add("refund of an unknown charge", event("evt_unknown_charge", "charge.refunded", t(1), charge("ch_zzz", "pi_zzz", 999, 999)), "ignored")
    add("active subscription created", event("evt_active", "customer.subscription.created", t(2), subscription("sub_c", "c1", "active")), "ignored")
    add("other type", event("evt_customer", "customer.created", t(2), {"id": "cus_9", "object": "customer"}), "ignored")
    return out


def currency_scenario(now):
    """c1 (trial-7d) pays 49.99 EUR and gets 10.00 EUR back; c2 (trial-3d) pays 8900 JPY (zero-decimal:
    the amount is in yen); c3 (trial-3d) pays 59.99 SEK, which has no rate: 422, nothing stored."""
    t = lambda days: now - days * DAY
    out = []

    def add(name, body, status, etype=None):
        out.append({"name": name, "body": json.dumps(body, separators=(",", ":")), "status": status, "type": etype})

    add("c1 purchased in EUR", event("evt_c1_1", "invoice.paid", t(5), invoice("in_c1_1", "c1", 4999, "eur", "subscription_create", t(5),
                                                                              intent="pi_c1_1")), "stored", "purchased")
    add("c1 partly refunded in EUR", event("evt_c1_2", "charge.refunded", t(4), charge("ch_c1_1", "pi_c1_1", 4999, 1000, currency="eur")),
        "stored", "refunded")
    add("c2 purchased in JPY", event("evt_c2_1", "invoice.paid", t(5), invoice("in_c2_1", "c2", 8900, "jpy", "subscription_create", t(5),
                                                                              intent="pi_c2_1")), "stored", "purchased")
    add("c3 purchased in SEK", event("evt_c3_1", "invoice.paid", t(5), invoice("in_c3_1", "c3", 5999, "sek", "subscription_create", t(5),
                                                                              intent="pi_c3_1")), "422")
    return out


def life_scenario(now):
    """The subscription's later life: l1 pays, a renewal fails, cancels and undoes it twice (at period
    end, then by `cancel_at`), moves to the monthly price, and its subscription is deleted for the
    failed payment; l2 and l3's are deleted at their request and for no reason given. Each case's
    `row` is what the stored event keeps."""
    t = lambda days: now - days * DAY
    out = []

    def add(name, body, status, etype=None, **row):
        out.append({"name": name, "body": json.dumps(body, separators=(",", ":")), "status": status, "type": etype,
                    "event_id": body["id"], "row": row or None})

    monthly = {"object": "list", "data": [{"id": "si_l1", "object": "subscription_item",
                                           "price": {"id": "price_monthly", "object": "price", "lookup_key": "chorus.plus.monthly",
                                                     "unit_amount": 999, "currency": "usd"}}]}
    annual = subscription("sub_l1", "l1", "active")["items"]
    add("l1 purchased", event("evt_l1_1", "invoice.paid", t(9), invoice("in_l1_1", "l1", 5999, "usd", "subscription_create", t(9),
                                                                       intent="pi_l1_1")), "stored", "purchased")
    failed = invoice("in_l1_2", "l1", 0, "usd", "subscription_cycle", t(8))
    failed.update({"status": "open", "amount_due": 5999, "attempt_count": 1, "next_payment_attempt": t(5)})
    add("l1 renewal payment failed", event("evt_l1_2", "invoice.payment_failed", t(8), failed), "stored", "billing_issue",
        product_id="price_annual")
    add("l1 cancel at period end", event("evt_l1_3", "customer.subscription.updated", t(7),
                                         subscription("sub_l1", "l1", "active", cancel_at_period_end=True, canceled_at=t(7)),
                                         previous={"cancel_at_period_end": False}), "stored", "cancelled")
    add("l1 cancel undone", event("evt_l1_4", "customer.subscription.updated", t(6),
                                  subscription("sub_l1", "l1", "active"), previous={"cancel_at_period_end": True, "canceled_at": t(7)}),
        "stored", "uncancelled")
    add("l1 cancel_at set", event("evt_l1_5", "customer.subscription.updated", t(5),
                                  subscription("sub_l1", "l1", "active", cancel_at=t(-20)), previous={"cancel_at": None}), "stored", "cancelled")
    add("l1 cancel_at cleared", event("evt_l1_6", "customer.subscription.updated", t(4),
                                      subscription("sub_l1", "l1", "active"), previous={"cancel_at": t(-20)}), "stored", "uncancelled")
    add("l1 moves to the monthly price", event("evt_l1_7", "customer.subscription.updated", t(3),
                                               subscription("sub_l1", "l1", "active", items=monthly), previous={"items": annual}),
        "stored", "plan_changed", product_id="chorus.plus.monthly", previous_product_id="chorus.plus.annual", effective="now")
    add("l1 deleted: the payment failed", event("evt_l1_8", "customer.subscription.deleted", t(1),
                                                subscription("sub_l1", "l1", "canceled", items=monthly, canceled_at=t(1), ended_at=t(1),
                                                             cancellation_details={"comment": None, "feedback": None, "reason": "payment_failed"})),
        "stored", "expired", reason="billing")
    add("l2 deleted at the customer's request", event("evt_l2_1", "customer.subscription.deleted", t(1),
                                                      subscription("sub_l2", "l2", "canceled", canceled_at=t(1), ended_at=t(1),
                                                                   cancellation_details={"comment": None, "feedback": "too_expensive",
                                                                                         "reason": "cancellation_requested"})),
        "stored", "expired", reason="voluntary")
    add("l3 deleted, no reason given", event("evt_l3_1", "customer.subscription.deleted", t(1),
                                             subscription("sub_l3", "l3", "canceled", canceled_at=t(1), ended_at=t(1))),
        "stored", "expired", reason="other")
    add("payment failed, no abctl_user_id", event("evt_l4_1", "invoice.payment_failed", t(1), invoice("in_l4_1", None, 0, "usd", "subscription_cycle", t(1))),
        "ignored")
    add("an update that changes nothing abctl keeps", event("evt_l1_9", "customer.subscription.updated", t(0.5),
                                                            subscription("sub_l1", "l1", "active", items=monthly), previous={"metadata": {}}),
        "ignored")
    return out


def main():
    out_path, secret, now = sys.argv[1], sys.argv[2], int(sys.argv[3])
    scenarios = {"currency": currency_scenario, "life": life_scenario}
    cases = scenarios.get(sys.argv[4] if len(sys.argv) > 4 else "", scenario)(now)
    for c in cases:
        c["header"] = stripe.WebhookSignature.generate_signature_header(c["body"], secret)
    with open(out_path, "w") as f:
        json.dump(cases, f, indent=1)


if __name__ == "__main__":
    main()
