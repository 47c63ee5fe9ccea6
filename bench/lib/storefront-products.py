"""Gives a copied Experiments/products.json storefronts (JP, DE, FR, GB, KR) and every plan its
storefront prices, for the benchmarks that compare assign with and without a country:
   python3 bench/lib/storefront-products.py FOLDER/products.json"""
import json, sys
p = json.load(open(sys.argv[1]))
p["exchange_rates"] = {**p.get("exchange_rates", {}), "JPY": 0.0067, "EUR": 1.08, "GBP": 1.27, "KRW": 0.00075}
p["storefronts"] = {"JP": "JPY", "DE": "EUR", "FR": "EUR", "GB": "GBP", "KR": "KRW"}
local = {"P1M": {"JPY": 1500, "EUR": 10.99, "GBP": 8.99, "KRW": 14000}, "P1Y": {"JPY": 9800, "EUR": 69.99, "GBP": 49.99, "KRW": 99000}}
for offering in p["offerings"].values():
    for plan in offering["plans"].values():
        plan["prices"] = local[plan["period"]]
json.dump(p, open(sys.argv[1], "w"), indent=2)
