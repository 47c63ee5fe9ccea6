#!/bin/sh
# A/A with log-ins, the calibration run (docs/People.md): PeopleCalibrationTests at its full size, 100
# seeds (10 independent two-arm experiments each: 1,000 comparisons per metric, held to ±1.5 points
# around 5% false positives and 95% coverage). `make test` runs 30 seeds of the same test.
# Run from the repository root; the figures it prints are the ones in docs/People.md.
set -eu
ABCTL_CALIBRATION=full swift test --filter PeopleCalibrationTests 2>&1 \
    | grep -E "A/A with log-ins|passed|failed|recorded an issue"
