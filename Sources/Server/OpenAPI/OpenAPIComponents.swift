import Assignment
import ExperimentDefinitions

/// The parts of `/openapi.json` that no one route owns: the API's description and the
/// components (schemas, shared answers, security schemes) that routes refer to.
enum OpenAPIComponents {
    /// The event types' wire names, from the one vocabulary the parser reads.
    private static let eventTypeNames = EventType.allCases.map { "\"\($0.name)\"" }.joined(separator: ", ")
    /// An assignment's reasons, from the one list the Assigner answers with.
    private static let reasonNames = Assignment.Reason.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")

    static let info = #"""
{
  "title": "abctl",
  "version": "1.0.0",
  "summary": "A/B experiments for subscription-app paywalls: assignment, events, RevenueCat webhooks, reports.",
  "description": "JSON in and out. Keys go in `Authorization: Bearer KEY`; a key has the scopes assign, ingest and admin (admin may do everything), or report (read only: `GET /v1/experiments`, reports and the console); a key with scope sdk is a GrowthBook client key, sent only in the path of `/api/features/{clientKey}`; a key with scope app (the one an app build carries) may call `/v1/assign` and `/v1/identify` and post `exposure` and `identified` events only: any other event type through it is 403 and nothing of the batch is stored. With no keys configured the server listens on loopback only and every route is open. Errors are `{\"error\": {\"code\", \"message\", \"field\"}}`."
}
"""#

    static let components = #"""
{
  "securitySchemes": {
    "bearer": {
      "type": "http",
      "scheme": "bearer",
      "description": "An API key from ABCTL_API_KEYS or --keys-file."
    },
    "revenuecat": {
      "type": "apiKey",
      "in": "header",
      "name": "Authorization",
      "description": "The exact header value configured in RevenueCat and in ABCTL_REVENUECAT_AUTH."
    },
    "googlePush": {
      "type": "http",
      "scheme": "bearer",
      "bearerFormat": "JWT",
      "description": "The OIDC token Cloud Pub/Sub sends with an authenticated push, signed by Google."
    }
  },
  "responses": {
    "BadRequest": {
      "description": "Not JSON, or a field is missing or wrong; `field` names it.",
      "content": {
        "application/json": {
          "schema": {
            "$ref": "#/components/schemas/Error"
          }
        }
      }
    },
    "Unauthorized": {
      "description": "Missing or unknown key.",
      "content": {
        "application/json": {
          "schema": {
            "$ref": "#/components/schemas/Error"
          }
        }
      }
    },
    "Forbidden": {
      "description": "The key lacks the scope.",
      "content": {
        "application/json": {
          "schema": {
            "$ref": "#/components/schemas/Error"
          }
        }
      }
    },
    "NotFound": {
      "description": "No such experiment or variant.",
      "content": {
        "application/json": {
          "schema": {
            "$ref": "#/components/schemas/Error"
          }
        }
      }
    },
    "Timeout": {
      "description": "The request head or body did not arrive within its deadline (--header-timeout, --body-timeout plus the body's size at --min-rate); the connection is closed after this answer.",
      "content": {
        "application/json": {
          "schema": {
            "$ref": "#/components/schemas/Error"
          }
        }
      }
    },
    "TooLarge": {
      "description": "The body is over the limit (16 MiB unless --max-body says otherwise).",
      "content": {
        "application/json": {
          "schema": {
            "$ref": "#/components/schemas/Error"
          }
        }
      }
    },
    "Unavailable": {
      "description": "The event store cannot be reached; nothing was acknowledged.",
      "content": {
        "application/json": {
          "schema": {
            "$ref": "#/components/schemas/Error"
          }
        }
      }
    }
  },
  "schemas": {
    "AppStoreNotification": {
      "type": "object",
      "required": [
        "signedPayload"
      ],
      "properties": {
        "signedPayload": {
          "type": "string",
          "description": "A JWS (compact form) signed by the App Store."
        }
      }
    },
    "GrowthBookPayload": {
      "type": "object",
      "required": [
        "status",
        "features",
        "dateUpdated"
      ],
      "properties": {
        "status": {
          "type": "integer"
        },
        "features": {
          "type": "object",
          "description": "One feature per running experiment inside its dates, keyed by experiment id: defaultValue null, force rules for forced users, then one experiment rule.",
          "additionalProperties": {
            "type": "object"
          }
        },
        "dateUpdated": {
          "type": "string",
          "format": "date-time"
        }
      }
    },
    "Error": {
      "type": "object",
      "required": [
        "error"
      ],
      "properties": {
        "error": {
          "type": "object",
          "required": [
            "code",
            "message"
          ],
          "properties": {
            "code": {
              "type": "string",
              "description": "Stable, e.g. invalid_json, missing_field, unauthorized, not_found, body_too_large, invalid_event, store_unavailable."
            },
            "message": {
              "type": "string"
            },
            "field": {
              "type": "string",
              "description": "The request field at fault, when there is one."
            },
            "line": {
              "type": "integer",
              "description": "For events: the line (NDJSON) or position (array) of the first rejection."
            }
          }
        }
      }
    },
    "Health": {
      "type": "object",
      "required": [
        "status",
        "experiments",
        "loaded_at",
        "reloads",
        "uptime_seconds",
        "last_reload_error"
      ],
      "properties": {
        "status": {
          "type": "string",
          "enum": [
            "ok",
            "draining"
          ]
        },
        "experiments": {
          "type": "integer",
          "minimum": 0
        },
        "loaded_at": {
          "type": "string",
          "format": "date-time"
        },
        "reloads": {
          "type": "integer",
          "minimum": 0
        },
        "uptime_seconds": {
          "type": "number",
          "minimum": 0
        },
        "last_reload_error": {
          "description": "The last refused reload (SIGHUP with a broken experiments folder; the old experiments stay), until a later reload succeeds; null when there is none.",
          "oneOf": [
            {
              "type": "null"
            },
            {
              "type": "object",
              "required": [
                "at",
                "problems"
              ],
              "properties": {
                "at": {
                  "type": "string",
                  "format": "date-time"
                },
                "problems": {
                  "type": "array",
                  "items": {
                    "type": "string"
                  },
                  "description": "Each error as file:line:column: error: message, the first 20, then \"and N more\"."
                }
              }
            }
          ]
        }
      }
    },
    "AssignRequest": {
      "type": "object",
      "required": [
        "user_id"
      ],
      "additionalProperties": false,
      "properties": {
        "user_id": {
          "type": "string",
          "minLength": 1
        },
        "attributes": {
          "type": "object",
          "description": "Targeting attributes: platform, country, language, app_version, new_user, and anything a condition reads."
        },
        "variables": {
          "type": "object",
          "additionalProperties": {
            "type": "string"
          },
          "description": "Values for {{ custom.NAME }} placeholders, e.g. userName."
        },
        "signals": {
          "type": "object",
          "description": "Fixed onboarding answers that brief rules read."
        },
        "experiments": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "Only these experiments (default: all but global holdouts)."
        },
        "placement": {
          "type": "string",
          "description": "A placement of placements.json, instead of experiments: the answer is a PlacementResponse."
        },
        "on_device_model": {
          "type": "boolean",
          "default": true,
          "description": "false when the device cannot run a model: a server started with --llm-url then writes ai_generated lines itself; otherwise the recipe is handed over as usual."
        }
      }
    },
    "AssignResponse": {
      "type": "object",
      "required": [
        "user_id",
        "assignments"
      ],
      "properties": {
        "user_id": {
          "type": "string"
        },
        "assignments": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/Assignment"
          }
        },
        "holdouts": {
          "$ref": "#/components/schemas/Holdouts"
        }
      }
    },
    "Holdouts": {
      "type": "array",
      "description": "The user's arm in each global holdout that takes them; log it with the exposure like any other.",
      "items": {
        "type": "object",
        "required": [
          "experiment",
          "variant"
        ],
        "properties": {
          "experiment": {
            "type": "string"
          },
          "variant": {
            "type": "string",
            "enum": [
              "holdout",
              "general"
            ]
          }
        }
      }
    },
    "PlacementResponse": {
      "type": "object",
      "required": [
        "user_id",
        "placement",
        "audience",
        "show_paywall",
        "paywall",
        "experiment",
        "variant",
        "in_experiment",
        "reason",
        "holdouts"
      ],
      "properties": {
        "user_id": {
          "type": "string"
        },
        "placement": {
          "type": "string"
        },
        "audience": {
          "type": [
            "string",
            "null"
          ],
          "description": "The audience that decided; null when none matched."
        },
        "show_paywall": {
          "type": "boolean",
          "description": "false: show no paywall here (an audience or arm with a null paywall)."
        },
        "paywall": {
          "oneOf": [
            {
              "$ref": "#/components/schemas/Paywall"
            },
            {
              "type": "null"
            }
          ]
        },
        "experiment": {
          "type": [
            "string",
            "null"
          ],
          "description": "The audience's experiment, if it names one."
        },
        "variant": {
          "type": [
            "string",
            "null"
          ],
          "description": "Set when in the experiment (and for forced users); log an exposure only when in_experiment is true."
        },
        "in_experiment": {
          "type": "boolean"
        },
        "reason": {
          "type": "string",
          "description": "The experiment's reason (as in Assignment, or shipped or holdout), audience for a fixed paywall or none, default when no audience matched."
        },
        "targeting_attribute": {
          "type": "string",
          "enum": [
            "platform",
            "country",
            "language",
            "app_version",
            "new_user"
          ],
          "description": "Only when reason is targeting: the attribute whose targeting key the request failed, as in Assignment."
        },
        "allocation_period": {
          "type": "string",
          "format": "date-time",
          "description": "When the audience's experiment is a bandit and in_experiment is true: the start of the allocation period whose weights drew the arm. Echo it on the exposure (allocation_period), so the report counts the user in that period."
        },
        "holdouts": {
          "$ref": "#/components/schemas/Holdouts"
        }
      }
    },
    "Assignment": {
      "type": "object",
      "required": [
        "experiment",
        "variant",
        "in_experiment",
        "bucket",
        "reason",
        "paywall"
      ],
      "properties": {
        "experiment": {
          "type": "string"
        },
        "variant": {
          "type": [
            "string",
            "null"
          ],
          "description": "null when the user is not in the experiment."
        },
        "in_experiment": {
          "type": "boolean",
          "description": "false for forced (QA) users, who get a variant but are never counted."
        },
        "bucket": {
          "type": "number",
          "minimum": 0,
          "maximum": 1
        },
        "reason": {
          "type": "string",
          "enum": [
            \#(reasonNames)
          ]
        },
        "targeting_attribute": {
          "type": "string",
          "enum": [
            "platform",
            "country",
            "language",
            "app_version",
            "new_user"
          ],
          "description": "Only when reason is targeting: the attribute whose targeting key the request failed (missing, of the wrong type, or a value the key does not take); the first in this order."
        },
        "allocation_period": {
          "type": "string",
          "format": "date-time",
          "description": "A bandit only, when in_experiment is true: the start of the allocation period whose weights drew the arm. Echo it on the exposure (allocation_period), so the report counts the user in that period."
        },
        "paywall": {
          "oneOf": [
            {
              "$ref": "#/components/schemas/Paywall"
            },
            {
              "type": "null"
            }
          ],
          "description": "The variant's paywall; the winner's when shipped; the control's for a user a holdout holds out."
        }
      }
    },
    "Paywall": {
      "type": "object",
      "required": [
        "offering",
        "trial_days",
        "discount_framing",
        "discount_text",
        "highlighted_plan",
        "plans",
        "copy"
      ],
      "properties": {
        "offering": {
          "type": "string"
        },
        "trial_days": {
          "type": "integer",
          "minimum": 0,
          "maximum": 31
        },
        "discount_framing": {
          "type": "string",
          "enum": [
            "none",
            "percent_off",
            "months_free",
            "per_week"
          ]
        },
        "discount_text": {
          "type": [
            "string",
            "null"
          ],
          "description": "Computed from products.json, e.g. 'Save 49%'."
        },
        "highlighted_plan": {
          "type": [
            "string",
            "null"
          ]
        },
        "plans": {
          "type": "array",
          "description": "The offering's plans from products.json, so the app needs no copy of the price table.",
          "items": {
            "type": "object",
            "required": [
              "key",
              "product_id",
              "price",
              "period",
              "currency",
              "highlighted"
            ],
            "properties": {
              "key": {
                "type": "string"
              },
              "product_id": {
                "type": "string"
              },
              "price": {
                "type": "number"
              },
              "period": {
                "type": "string"
              },
              "currency": {
                "type": "string"
              },
              "highlighted": {
                "type": "boolean"
              }
            }
          }
        },
        "copy": {
          "type": "object",
          "required": [
            "source",
            "text"
          ],
          "properties": {
            "source": {
              "type": "string",
              "enum": [
                "static",
                "template",
                "on_device",
                "server",
                "fallback"
              ]
            },
            "text": {
              "type": [
                "string",
                "null"
              ],
              "description": "null when the app generates the line from `recipe`."
            },
            "fallback_reason": {
              "type": "string"
            },
            "recipe": {
              "type": "object",
              "required": [
                "instructions",
                "brief",
                "prompt",
                "generation",
                "guard",
                "fallback"
              ],
              "properties": {
                "instructions": {
                  "type": "string"
                },
                "brief": {
                  "type": "string"
                },
                "prompt": {
                  "type": "string"
                },
                "generation": {
                  "type": "object"
                },
                "guard": {
                  "type": "object"
                },
                "fallback": {
                  "type": "string"
                }
              }
            }
          }
        }
      }
    },
    "Event": \#(OpenAPIEventSchema.json.serialized()),
    "IdentifyRequest": {
      "type": "object",
      "required": [
        "user_id",
        "identity"
      ],
      "additionalProperties": false,
      "properties": {
        "user_id": {
          "type": "string",
          "minLength": 1,
          "description": "The id used so far (an anonymous id)."
        },
        "identity": {
          "type": "string",
          "minLength": 1,
          "description": "The known id (an account id)."
        },
        "ts": {
          "type": "string",
          "format": "date-time",
          "description": "When the user logged in; the server's clock when absent."
        }
      }
    },
    "IdentifyResponse": {
      "type": "object",
      "required": [
        "user_id",
        "identity",
        "stored",
        "duplicate"
      ],
      "properties": {
        "user_id": {
          "type": "string"
        },
        "identity": {
          "type": "string"
        },
        "stored": {
          "type": "integer",
          "minimum": 0,
          "maximum": 1
        },
        "duplicate": {
          "type": "integer",
          "minimum": 0,
          "maximum": 1
        }
      }
    },
    "EventCounts": {
      "type": "object",
      "required": [
        "stored",
        "duplicate",
        "rejected"
      ],
      "properties": {
        "stored": {
          "type": "integer",
          "minimum": 0
        },
        "duplicate": {
          "type": "integer",
          "minimum": 0
        },
        "rejected": {
          "type": "integer",
          "minimum": 0
        },
        "ignored": {
          "type": "integer",
          "minimum": 0,
          "description": "Lines naming an experiment the folder does not have (unknown_experiment), not refused: an exposure is not stored; any other event is stored (and counted in stored) without the experiment."
        },
        "ignored_lines": {
          "type": "array",
          "description": "Each ignored line (the first 100), with the nearest experiment id of the folder in its message; present when ignored is not 0.",
          "items": {
            "type": "object",
            "required": ["line", "code", "message"],
            "properties": {
              "line": {"type": "integer", "minimum": 0},
              "code": {"type": "string", "enum": ["unknown_experiment"]},
              "message": {"type": "string"}
            }
          }
        }
      }
    },
    "EventRejections": {
      "type": "object",
      "required": [
        "error",
        "stored",
        "duplicate",
        "rejected",
        "rejections"
      ],
      "properties": {
        "error": {
          "$ref": "#/components/schemas/Error/properties/error"
        },
        "stored": {
          "type": "integer",
          "const": 0
        },
        "duplicate": {
          "type": "integer",
          "const": 0
        },
        "rejected": {
          "type": "integer",
          "minimum": 1
        },
        "rejections": {
          "type": "array",
          "description": "One item per problem: every bad field of every rejected line (or array position; 0 is the whole body), the first 100. The error's message names the first 20 after a summary, and its field is the first problem's.",
          "items": {
            "type": "object",
            "required": [
              "line",
              "field",
              "message"
            ],
            "properties": {
              "line": {
                "type": "integer"
              },
              "field": {
                "type": "string"
              },
              "message": {
                "type": "string"
              }
            }
          }
        }
      }
    },
    "RevenueCatWebhook": {
      "type": "object",
      "required": [
        "event"
      ],
      "properties": {
        "api_version": {
          "type": "string"
        },
        "event": {
          "type": "object",
          "required": [
            "type"
          ],
          "properties": {
            "type": {
              "type": "string",
              "description": "INITIAL_PURCHASE, RENEWAL, CANCELLATION, NON_RENEWING_PURCHASE, or any other type (ignored)."
            },
            "id": {
              "type": "string"
            },
            "app_user_id": {
              "type": "string"
            },
            "original_app_user_id": {
              "type": "string"
            },
            "period_type": {
              "type": "string"
            },
            "is_trial_conversion": {
              "type": "boolean"
            },
            "price": {
              "type": "number"
            },
            "product_id": {
              "type": "string"
            },
            "purchased_at_ms": {
              "type": "integer"
            },
            "event_timestamp_ms": {
              "type": "integer"
            }
          }
        }
      }
    },
    "WebhookResult": {
      "type": "object",
      "required": [
        "status",
        "type"
      ],
      "properties": {
        "status": {
          "type": "string",
          "enum": [
            "stored",
            "duplicate",
            "ignored"
          ]
        },
        "type": {
          "type": "string",
          "description": "The event type it became, or the RevenueCat type (App Store notificationType.subtype) that was ignored."
        },
        "event_id": {
          "type": "string"
        },
        "reason": {
          "type": "string",
          "enum": [
            "no_user",
            "already_counted",
            "doubtful_revenue",
            "doubtful_ts",
            "environment"
          ],
          "description": "Why a verified event was ignored, when not for its type: no user, a refund already counted, or a doubtful event (revenue of the wrong sign, a time ahead of the clock)."
        },
        "message": {
          "type": "string",
          "description": "With a doubtful event: the field of the vendor's body and what is wrong with it."
        }
      }
    },
    "CopyCheckRequest": {
      "type": "object",
      "required": [
        "experiment",
        "variant",
        "text"
      ],
      "additionalProperties": false,
      "properties": {
        "experiment": {
          "type": "string",
          "minLength": 1
        },
        "variant": {
          "type": "string",
          "minLength": 1
        },
        "text": {
          "type": "string"
        },
        "user_name": {
          "type": [
            "string",
            "null"
          ]
        }
      }
    },
    "CopyCheckResponse": {
      "type": "object",
      "required": [
        "experiment",
        "variant",
        "text",
        "accepted",
        "violations"
      ],
      "properties": {
        "experiment": {
          "type": "string"
        },
        "variant": {
          "type": "string"
        },
        "text": {
          "type": "string",
          "description": "The line after stray quotes, braces and spaces are trimmed."
        },
        "accepted": {
          "type": "boolean"
        },
        "violations": {
          "type": "array",
          "items": {
            "type": "object",
            "required": [
              "rule",
              "message"
            ],
            "properties": {
              "rule": {
                "type": "string"
              },
              "message": {
                "type": "string"
              }
            }
          }
        }
      }
    },
    "CopyDiagnostics": {
      "type": "object",
      "required": [
        "enabled",
        "model",
        "deadline_ms",
        "counts",
        "recent_failures"
      ],
      "properties": {
        "enabled": {
          "type": "boolean",
          "description": "Whether the server runs with --llm-url."
        },
        "model": {
          "type": [
            "string",
            "null"
          ],
          "description": "--llm-model."
        },
        "deadline_ms": {
          "type": [
            "integer",
            "null"
          ],
          "minimum": 1,
          "description": "--llm-deadline-ms."
        },
        "counts": {
          "type": "object",
          "required": [
            "generated",
            "cache_hits",
            "fallbacks"
          ],
          "properties": {
            "generated": {
              "type": "integer",
              "minimum": 0,
              "description": "Lines the model wrote that passed the guard."
            },
            "cache_hits": {
              "type": "integer",
              "minimum": 0,
              "description": "Assign answers with a line generated before (in memory or from the store's copy cache)."
            },
            "fallbacks": {
              "type": "object",
              "required": [
                "guard_rejected",
                "timeout",
                "empty_answer",
                "error"
              ],
              "additionalProperties": {
                "type": "integer",
                "minimum": 0
              },
              "description": "Assign answers that shipped the fallback, by reason."
            }
          }
        },
        "recent_failures": {
          "type": "array",
          "description": "The latest failed model calls and rejected lines (at most 50), newest first.",
          "items": {
            "type": "object",
            "required": [
              "at",
              "experiment",
              "variant",
              "reason",
              "detail"
            ],
            "properties": {
              "at": {
                "type": "string",
                "format": "date-time"
              },
              "experiment": {
                "type": "string"
              },
              "variant": {
                "type": "string"
              },
              "reason": {
                "type": "string",
                "enum": [
                  "guard_rejected",
                  "timeout",
                  "empty_answer",
                  "error"
                ]
              },
              "detail": {
                "type": "string"
              }
            }
          }
        }
      }
    },
    "Experiments": {
      "type": "object",
      "required": [
        "experiments",
        "products"
      ],
      "properties": {
        "experiments": {
          "type": "array",
          "items": {
            "type": "object",
            "description": "An experiment file as written: an experiment has variants; a global holdout (kind holdout) has a fraction and no variants.",
            "required": [
              "id",
              "name",
              "status"
            ],
            "properties": {
              "kind": {
                "enum": ["experiment", "holdout"]
              }
            },
            "if": {
              "required": ["kind"],
              "properties": {"kind": {"const": "holdout"}}
            },
            "then": {
              "required": ["fraction"]
            },
            "else": {
              "required": ["variants"]
            }
          }
        },
        "products": {
          "type": "object",
          "required": [
            "currency",
            "offerings"
          ]
        }
      }
    },
    "Report": {
      "type": "object",
      "required": [
        "experiment",
        "generated_at",
        "users",
        "variants",
        "comparisons"
      ],
      "properties": {
        "experiment": {
          "type": "string"
        },
        "generated_at": {
          "type": "string"
        },
        "users": {
          "type": "integer"
        },
        "variants": {
          "type": "array"
        },
        "comparisons": {
          "type": "array"
        },
        "timeline": {
          "type": "object",
          "description": "The effect over time: the primary metric, in the form the verdict reads, compared with the control one point a day, each as a report run to that day's end gives it (docs/Reports.md).",
          "required": [
            "metric",
            "points"
          ],
          "properties": {
            "metric": {
              "type": "string"
            },
            "points": {
              "type": "array",
              "maxItems": 90,
              "items": {
                "type": "object",
                "required": [
                  "date",
                  "users",
                  "comparisons"
                ],
                "properties": {
                  "date": {
                    "type": "string",
                    "format": "date"
                  },
                  "users": {
                    "type": "object",
                    "additionalProperties": {
                      "type": "integer"
                    }
                  },
                  "comparisons": {
                    "type": "object",
                    "additionalProperties": {
                      "type": "object",
                      "required": [
                        "absolute_diff",
                        "absolute_ci"
                      ],
                      "properties": {
                        "absolute_diff": {
                          "type": [
                            "number",
                            "null"
                          ]
                        },
                        "absolute_ci": {
                          "type": [
                            "array",
                            "null"
                          ],
                          "items": {
                            "type": "number"
                          },
                          "minItems": 2,
                          "maxItems": 2
                        },
                        "null_reason": {
                          "type": "string"
                        }
                      }
                    }
                  }
                }
              }
            },
            "null_reason": {
              "type": "string"
            }
          }
        }
      }
    }
  }
}
"""#
}
