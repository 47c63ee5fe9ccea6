import Foundation

/// The repository root, found from this file's location.
let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

let productsJSON = """
{ "currency": "USD",
  "offerings": { "chorus_plus": { "plans": {
      "monthly": { "product_id": "chorus.plus.monthly", "price": 9.99, "period": "P1M" },
      "annual":  { "product_id": "chorus.plus.annual",  "price": 59.99, "period": "P1Y" } } },
    "flat": { "plans": {
      "monthly": { "product_id": "flat.monthly", "price": 5, "period": "P1M" },
      "annual":  { "product_id": "flat.annual",  "price": 60, "period": "P1Y" } } } } }
"""

/// A valid experiment; tests break one thing at a time with `replacing`.
let validExperiment = """
{
  "$schema": "schema.json",
  "id": "exp-a",
  "name": "A",
  "status": "running",
  "start": "2026-12-01T00:00:00Z",
  "end": null,
  "coverage": 1.0,
  "namespace": { "id": "paywall", "range": [0.0, 0.5] },
  "targeting": { "platform": ["ios"], "app_version": ">=2.1.0" },
  "metrics": { "primary": "paid_conversion", "guardrails": ["day0_cancel_rate"] },
  "forced": { "qa-1": "ai" },
  "variants": [
    { "key": "control", "weight": 1, "paywall": { "offering": "chorus_plus", "trial_days": 3, "discount_framing": "none",
      "copy": { "strategy": "static", "text": "Hear every bird." } } },
    { "key": "name", "weight": 1, "paywall": { "offering": "chorus_plus", "trial_days": 3, "discount_framing": "percent_off",
      "copy": { "strategy": "custom_variable", "template": "{{ custom.userName }}, hear every bird.", "defaults": { "userName": "Birder" } } } },
    { "key": "ai", "weight": 1, "paywall": { "offering": "chorus_plus", "trial_days": 7, "discount_framing": "months_free",
      "copy": { "strategy": "ai_generated", "instructions": "Write one line.",
                "brief": { "rules": [ { "when": { "signal": "companion", "equals": "dog" }, "say": "They walk with their dog." } ] },
                "prompt": "Notes: {{ brief }}",
                "guard": { "max_words": 30, "mention_once": ["Chorus"], "forbid": ["?", "!"], "forbid_user_name": true },
                "fallback": "Picture your next walk with every song named. Chorus can help." } } }
  ]
}
"""
