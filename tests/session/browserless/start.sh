#!/bin/sh
# Starts the browserless platform (npm's @browserless.io/browserless, installed here by
# scripts/setup.sh) without Docker, on Debian's system Chromium. Its own settings come from the
# environment as in its Docker image (docs.browserless.io, "Docker configuration"): HOST, PORT,
# TOKEN, CONCURRENT, QUEUED, TIMEOUT, DATA_DIR. Usage: start.sh WORKDIR (a fresh directory).
#
# browserless launches the Chromium that its playwright-core names (Playwright's browser folder,
# PLAYWRIGHT_BROWSERS_PATH/chromium-REV/…); that path is made a link to /usr/bin/chromium. Its
# routes are limited to chromium's and the management ones (it refuses to start with routes for
# browsers that are not installed: Chrome, Edge, Firefox, WebKit). It reads playwright-core's
# browsers.json from ./node_modules, so it runs from this folder.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$1
pkg="$here/node_modules/@browserless.io/browserless"
[ -f "$pkg/build/index.js" ] || { echo "start.sh: @browserless.io/browserless is not installed in $here (scripts/setup.sh)" >&2; exit 77; }
chromium=${CHROMIUM:-/usr/bin/chromium}
export PLAYWRIGHT_BROWSERS_PATH="$work/browsers"
exe=$(cd "$pkg" && node --input-type=module -e "import pw from 'playwright-core'; console.log(pw.chromium.executablePath())")
mkdir -p "$(dirname "$exe")" "$work/routes" "$work/data"
ln -sf "$chromium" "$exe"
ln -sfn "$pkg/build/routes/chromium" "$work/routes/chromium"
ln -sfn "$pkg/build/routes/management" "$work/routes/management"
export ROUTES="$work/routes" DATA_DIR="$work/data" DOWNLOAD_DIR="$work/data"
cd "$here"
exec node "$pkg/build/index.js"
