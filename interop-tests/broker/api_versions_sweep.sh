#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every advertised version of ApiVersions, CreateTopics, Metadata, Produce,
# Fetch, ListOffsets, OffsetForLeaderEpoch and DeleteTopics, sent over a raw
# socket (tests/clients/api_version_sweep.c, built on the generated codec that
# the oracle fixtures check), with the response fields asserted.
source "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
gr_start_broker
out=$(gr_prog api_version_sweep "$GR_BOOTSTRAP") || gr_fail "sweep failed: $(grep FAIL <<<"$out")"
echo "$out" >&2
gr_pass
