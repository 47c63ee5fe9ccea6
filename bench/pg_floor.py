#!/usr/bin/env python3
"""The floor for `abctl ingest` into PostgreSQL: a psql script that makes PostgreSQL do the same
work abctl's writer asks of it, with the rows precomputed and no abctl in the way.

For each batch of BATCH rows of events.tsv (bench/pg_rows.py's rows, in file order), one
transaction with the statements of Sources/PostgresStore/EventWriteTransaction.swift: COPY into
the staging table, INSERT … ON CONFLICT DO NOTHING into events in key order, the bucket locks,
the read of the stored events of the users whose facts are recomputed (sent to /dev/null), COPY
of their facts into the facts staging table and the upsert into facts, COMMIT. The facts rows
are the final ones from abctl's own run (facts.tsv, COPY of the facts table), for the users abctl
recomputes at that batch (exposed in it or before), so the row counts match and the values are
of the same size.

    python3 bench/pg_floor.py events.tsv facts.tsv OUTDIR [BATCH] > floor.sql
"""
import os, sys

tsv, facts_tsv, out = sys.argv[1], sys.argv[2], sys.argv[3]
batch = int(sys.argv[4]) if len(sys.argv) > 4 else 8192
os.makedirs(out, exist_ok=True)

COLUMNS = "user_id, event_id, type, ts, experiment, variant, revenue, currency, product_id, copy_source, copy_text, copy_fallback_reason"
FACT_COLUMNS = ("user_id, experiment, variant, first_exposure_ts, trial_start_ts, first_paid_ts, first_converted_ts, "
                "first_cancel_ts, refunded_ts, net_revenue, copy_source, copy_fallback_reason, revenue_entries, crossed_over")
UPDATES = ", ".join(f"{c} = EXCLUDED.{c}" for c in FACT_COLUMNS.split(", ")[2:])

def array(users):
    return "'{" + ",".join('"' + u.replace("\\", "\\\\").replace('"', '\\"') + '"' for u in sorted(users)) + "}'"

facts = {}
with open(facts_tsv) as f:
    for line in f:
        facts.setdefault(line.split("\t", 1)[0], []).append(line)

rows = open(tsv).read().splitlines(keepends=True)
print("""CREATE TEMPORARY TABLE abctl_staging (LIKE events) ON COMMIT DELETE ROWS;
CREATE TEMPORARY TABLE abctl_facts_staging (LIKE facts) ON COMMIT DELETE ROWS;
SET enable_seqscan = off;
SET jit = off;""")
exposed_ever = set()
for n, start in enumerate(range(0, len(rows), batch)):
    part = rows[start:start + batch]
    users, exposed = set(), set()
    for r in part:
        fields = r.split("\t", 3)
        users.add(fields[0])
        if fields[2] == "1":
            exposed.add(fields[0])
    with_facts = users & exposed_ever  # users with a facts row before this batch
    exposed_ever |= exposed
    events_file = os.path.join(out, f"events-{n}.tsv")
    facts_file = os.path.join(out, f"facts-{n}.tsv")
    open(events_file, "w").writelines(part)
    open(facts_file, "w").writelines(line for u in sorted(exposed | with_facts) for line in facts.get(u, []))
    print(f"""BEGIN;
\\copy abctl_staging ({COLUMNS}) FROM '{events_file}'
INSERT INTO events ({COLUMNS}) SELECT {COLUMNS} FROM abctl_staging ORDER BY user_id, event_id ON CONFLICT DO NOTHING;
SELECT count(*) FROM (SELECT pg_advisory_xact_lock(1, b) FROM (SELECT DISTINCT (hashtextextended(u, 0) & 511)::integer AS b
    FROM unnest({array(users)}::text[]) u ORDER BY b OFFSET 0) ordered) locked;
\\o /dev/null
SELECT user_id, type, ts, experiment, variant, revenue, copy_source, copy_fallback_reason, event_id FROM events
WHERE user_id = ANY(ARRAY(SELECT unnest({array(exposed)}::text[]) UNION ALL SELECT user_id FROM facts WHERE user_id = ANY({array(users - exposed)}::text[])))
  AND xmin <> pg_current_xact_id()::xid ORDER BY user_id;
\\o
\\copy abctl_facts_staging ({FACT_COLUMNS}) FROM '{facts_file}'
INSERT INTO facts ({FACT_COLUMNS}) SELECT {FACT_COLUMNS} FROM abctl_facts_staging
ON CONFLICT (user_id, experiment) DO UPDATE SET {UPDATES};
COMMIT;""")
