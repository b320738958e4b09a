# Sourced by scripts/windows_checks and scripts/package: finds Wine and readies a prefix.
#   wine_env PREFIX_DIR   sets $wine and $wineserver, exports WINEPREFIX and WINEDEBUG,
#                         makes the prefix on first use and keeps a wineserver for the run.
# Returns 1 (sets nothing) when no Wine is installed.
# Debian's wine64 package installs /usr/lib/wine/wine64 and no command on PATH; the `wine`
# package, when installed, adds /usr/bin/wine.
wine_env() {
  wine=""
  local w
  for w in /usr/bin/wine /usr/bin/wine64 /usr/lib/wine/wine64; do
    if [ -x "$w" ]; then wine=$w; break; fi
  done
  [ -n "$wine" ] || return 1
  export WINEPREFIX="$1" WINEDEBUG=-all
  wineserver=$(dirname "$wine")/wineserver
  [ -x "$wineserver" ] || wineserver=/usr/lib/wine/wineserver
  # A new prefix is made by wineboot, which restarts the server when it is done: commands
  # started meanwhile saw "recvmsg: Connection reset by peer" (2 of 650 on a first run).
  # Make it first, wait.
  if [ ! -f "$WINEPREFIX/system.reg" ]; then
    mkdir -p "$WINEPREFIX"
    "$wine" wineboot --init >/dev/null 2>&1 || true
    "$wineserver" -w 2>/dev/null || true
  fi
  # A persistent wineserver for the run saves starting one per command.
  "$wineserver" -p 60 2>/dev/null || true
}
