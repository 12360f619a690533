# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# ACL helpers for the security/acl_*.sh and cluster/cluster_acls.sh tests,
# sourced after lib.sh (it lives in lib/, which CTest does not search for
# tests).
#
# Until SASL lands, the only principal on a PLAINTEXT listener is
# User:ANONYMOUS, so refusals are tested the way Kafka users see them with
# allow.everyone.if.no.acl.found=true: a resource becomes closed to
# ANONYMOUS once an ACL exists for it that does not name ANONYMOUS, or a
# DENY names it. The helpers take the principal's client options as
# ACL_CLIENT_OPTS (kcat -X options), so principal-based tests (User:alice
# allowed, User:bob refused, over SASL) only set those, and ACL_BOOTSTRAP
# to the SASL listener (default $GR_BOOTSTRAP, where acl_admin goes).
#
# Functions:
#   acl_admin ARGS...            gregor-admin --bootstrap-server $GR_BOOTSTRAP ARGS
#   acl_add ARGS...              acl_admin acls --add ARGS (fails the test on error)
#   acl_remove ARGS...           acl_admin acls --remove --force ARGS (likewise)
#   acl_list [ARGS...]           acl_admin acls --list ARGS
#   acl_as USER CMD...           CMD with ACL_CLIENT_OPTS logging in as USER
#                                over SASL_PLAINTEXT, password USER-secret,
#                                mechanism $ACL_SASL_MECHANISM (default PLAIN)
#   acl_produce TOPIC            produces one record as the ACL_CLIENT_OPTS
#                                principal; 0, or 1 with kcat's error in
#                                $GR_TMP/acl.err
#   acl_consume TOPIC            reads TOPIC from the beginning (likewise)
#   acl_group_consume GROUP TOPIC  reads one record of TOPIC in consumer group
#                                GROUP (kcat -G; likewise)
#   acl_txn_produce ID TOPIC     produces one record in a transaction of
#                                transactional id ID (likewise)
#   acl_expect_refused WHAT MSG CMD...  CMD must fail and its error mention MSG
#   acl_expect_allowed WHAT CMD...      CMD must succeed

ACL_ADMIN=$(dirname "$GR_BROKER")/gregor-admin
ACL_CLIENT_OPTS=${ACL_CLIENT_OPTS:-}
ACL_BOOTSTRAP=${ACL_BOOTSTRAP:-}
ACL_AUTHORIZER=kafka.security.authorizer.AclAuthorizer

acl_admin() { timeout "$GR_CMD_TIMEOUT_S" "$ACL_ADMIN" --bootstrap-server "$GR_BOOTSTRAP" "$@"; }

acl_add()
{
    acl_admin acls --add "$@" >"$GR_TMP/acl.out" 2>&1 ||
        gr_fail "acls --add $*: $(cat "$GR_TMP/acl.out")"
}

acl_remove()
{
    acl_admin acls --remove --force "$@" >"$GR_TMP/acl.out" 2>&1 ||
        gr_fail "acls --remove $*: $(cat "$GR_TMP/acl.out")"
}

acl_list() { acl_admin acls --list "$@"; }

acl_as()
{
    local user=$1 opts="-X security.protocol=SASL_PLAINTEXT -X sasl.mechanism=${ACL_SASL_MECHANISM:-PLAIN}"
    shift
    ACL_CLIENT_OPTS="$opts -X sasl.username=$user -X sasl.password=$user-secret" "$@"
}

acl_produce()
{
    # shellcheck disable=SC2086 # ACL_CLIENT_OPTS holds several -X options
    echo "acl-record" | timeout 30 "$GR_KCAT" -b "${ACL_BOOTSTRAP:-$GR_BOOTSTRAP}" $ACL_CLIENT_OPTS \
        -X message.timeout.ms=5000 -P -t "$1" >"$GR_TMP/acl.err" 2>&1 &&
        ! grep -q "Delivery failed\|ERROR" "$GR_TMP/acl.err"
}

acl_consume()
{
    # shellcheck disable=SC2086
    timeout 30 "$GR_KCAT" -b "${ACL_BOOTSTRAP:-$GR_BOOTSTRAP}" $ACL_CLIENT_OPTS -C -t "$1" -o beginning -e -c 1 \
        >"$GR_TMP/acl.got" 2>"$GR_TMP/acl.err" && grep -q "acl-record" "$GR_TMP/acl.got"
}

acl_group_consume()
{
    # shellcheck disable=SC2086
    timeout 30 "$GR_KCAT" -b "${ACL_BOOTSTRAP:-$GR_BOOTSTRAP}" $ACL_CLIENT_OPTS -G "$1" "$2" -o beginning -e -c 1 \
        >"$GR_TMP/acl.got" 2>"$GR_TMP/acl.err" && grep -q "acl-record" "$GR_TMP/acl.got"
}

acl_txn_produce()
{
    # shellcheck disable=SC2086
    echo "acl-record" | timeout 30 "$GR_KCAT" -b "${ACL_BOOTSTRAP:-$GR_BOOTSTRAP}" $ACL_CLIENT_OPTS \
        -X transactional.id="$1" -P -t "$2" >"$GR_TMP/acl.err" 2>&1 &&
        grep -q "Transaction successfully committed" "$GR_TMP/acl.err"
}

acl_expect_refused()
{
    local what=$1 msg=$2
    shift 2
    if "$@"; then
        gr_fail "$what: allowed, want refused"
    fi
    grep -qi "$msg" "$GR_TMP/acl.err" ||
        gr_fail "$what: refused without '$msg': $(head -c 600 "$GR_TMP/acl.err")"
}

acl_expect_allowed()
{
    local what=$1
    shift
    "$@" || gr_fail "$what: refused, want allowed: $(head -c 600 "$GR_TMP/acl.err")"
}
