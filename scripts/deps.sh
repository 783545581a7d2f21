#!/bin/sh
# Installs llmroof's build and test dependencies from Debian when any is missing.
# Uses sudo only when not root. Safe to run repeatedly (does nothing when all present).
#   sh scripts/deps.sh          what building and running llmroof needs
#   sh scripts/deps.sh --test   plus the test suite's tools: clang (second compiler),
#                               valgrind, cppcheck, clang-tidy, python3 (the binding and
#                               server tests), chromium (the page's browser test, driven
#                               headless over its DevTools pipe: no node, no driver)
set -eu
pkgs="gcc make cmake pkg-config libcjson-dev libcmocka-dev libmicrohttpd-dev"
[ "${1:-}" = --test ] && pkgs="$pkgs clang valgrind cppcheck clang-tidy python3 chromium locales"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
if [ -n "$missing" ]; then
    echo "llmroof: installing:$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# a locale with a decimal comma, for the library's test that its output does not follow the
# calling program's locale (test_api: calls_should_not_depend_on_the_callers_locale)
if [ "${1:-}" = --test ] && ! locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$'; then
    $sudo localedef -i de_DE -f UTF-8 de_DE.UTF-8
fi
