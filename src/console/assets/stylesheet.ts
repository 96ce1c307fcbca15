/**
 * console.css: a plain, dense layout for people on call. Text contrast is at least
 * 4.5:1 everywhere (body #1b2330 on white, muted #4b5563, links #0b57d0); every badge
 * says its status in words, colour only repeats it; focus is always visible.
 */
export const CONSOLE_CSS = `
*, *::before, *::after { box-sizing: border-box; }
html { font-size: 16px; }
body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Liberation Sans", Arial, sans-serif;
  color: #1b2330; background: #f5f6f8; line-height: 1.5; }
code, pre { font-family: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 0.875rem; }
a { color: #0b57d0; text-underline-offset: 2px; }
a:hover { color: #0842a0; }
:focus-visible { outline: 3px solid #0b57d0; outline-offset: 2px; border-radius: 2px; }
.skip-link { position: absolute; left: 0.5rem; top: -3rem; background: #fff; color: #0b57d0; padding: 0.5rem 0.75rem; border: 2px solid #0b57d0; z-index: 10; }
.skip-link:focus { top: 0.5rem; }
.visually-hidden { position: absolute !important; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }

.site-header { background: #14213d; color: #fff; }
.site-header-inner { max-width: 80rem; margin: 0 auto; padding: 0.6rem 1.5rem; display: flex; align-items: center; gap: 1.5rem; flex-wrap: wrap; }
.brand { color: #fff; font-weight: 700; font-size: 1.2rem; text-decoration: none; letter-spacing: 0.01em; }
.brand:hover { color: #fff; }
.brand-sub { font-weight: 400; color: #cdd6e6; margin-left: 0.4rem; font-size: 0.95rem; }
.site-header :focus-visible { outline-color: #ffd166; }
.nav-list { list-style: none; margin: 0; padding: 0; display: flex; gap: 1rem; }
.nav-list a { color: #fff; text-decoration: none; font-weight: 600; }
.nav-list a:hover { text-decoration: underline; }
.who { margin-left: auto; display: flex; align-items: center; gap: 0.75rem; font-size: 0.9rem; color: #e6ebf4; }
.who-ability { color: #cdd6e6; }
.who .button-quiet { background: transparent; color: #fff; border-color: #8a9ab8; }
.who .button-quiet:hover { background: #22335a; }

main { max-width: 80rem; margin: 0 auto; padding: 1.25rem 1.5rem 3rem; }
main:focus { outline: none; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0.25rem 0 0.75rem; }
h2 { font-size: 1.15rem; margin: 0 0 0.75rem; }
h3 { font-size: 1rem; margin: 1rem 0 0.4rem; }
h1 code { font-size: 0.9em; }
.lead { font-size: 1.05rem; }
.muted { color: #4b5563; }
.small { font-size: 0.875rem; }
.narrow { max-width: 32rem; margin: 2rem auto; background: #fff; border: 1px solid #d5d9e0; border-radius: 8px; padding: 1.5rem 2rem; }
.page-head { display: flex; align-items: center; justify-content: space-between; gap: 1rem; flex-wrap: wrap; }
.page-head h1 { margin-bottom: 0.5rem; }
.page-actions { margin: 0; }
.breadcrumb { margin: 0 0 0.5rem; font-size: 0.9rem; color: #4b5563; }

.card { background: #fff; border: 1px solid #d5d9e0; border-radius: 8px; padding: 1rem 1.25rem; margin: 1rem 0; }
.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(13rem, 1fr)); gap: 0.5rem 1.25rem; margin: 0 0 0.75rem; }
.facts .wide { grid-column: span 2; }
.facts dt { font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.04em; color: #4b5563; font-weight: 600; }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.summary { margin: 0.5rem 0; max-width: 60rem; }
.reason { background: #fff; border-left: 4px solid #4b5563; padding: 0.5rem 0.75rem; }
.evidence, .diff { list-style: none; padding: 0; margin: 0.25rem 0; }
.evidence li, .diff li { padding: 0.35rem 0.6rem; border-left: 3px solid #c3cad6; background: #f7f8fa; margin: 0.25rem 0; overflow-wrap: anywhere; }
.diff li { border-left-color: #0b57d0; background: #eef4fe; }
.code-block { background: #f7f8fa; border: 1px solid #d5d9e0; border-radius: 6px; padding: 0.75rem; overflow-x: auto; margin: 0.25rem 0; }
.labels { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 0.25rem; }
.labels code { background: #eef0f3; padding: 0.05rem 0.35rem; border-radius: 4px; }

.filters { display: flex; flex-wrap: wrap; align-items: flex-end; gap: 0.75rem 1rem; background: #fff; border: 1px solid #d5d9e0; border-radius: 8px; padding: 0.9rem 1rem; margin: 0.5rem 0 0.75rem; }
.field { display: flex; flex-direction: column; gap: 0.25rem; }
.field label { font-weight: 600; font-size: 0.9rem; }
.hint { font-size: 0.8rem; color: #4b5563; }
#filter-cluster { min-width: 17rem; }
input[type="text"], input[type="password"], select, textarea { font: inherit; color: #1b2330; background: #fff; border: 1px solid #6b7280; border-radius: 6px; padding: 0.4rem 0.55rem; min-width: 12rem; }
textarea { width: 100%; resize: vertical; }
input[aria-invalid="true"] { border-color: #a61b1b; }
.filter-buttons, .decision-buttons { display: flex; gap: 0.5rem; align-items: center; }
.stack { display: flex; flex-direction: column; gap: 0.9rem; }
.inline-form { display: inline; margin: 0; }

.button { display: inline-block; font: inherit; font-weight: 600; font-size: 0.95rem; line-height: 1.2; padding: 0.5rem 0.95rem; border-radius: 6px; border: 1px solid transparent; cursor: pointer; text-decoration: none; }
.button-primary { background: #0b57d0; color: #fff; }
.button-primary:hover { background: #0842a0; color: #fff; }
.button-quiet { background: #fff; color: #1b2330; border-color: #9aa3b2; }
.button-quiet:hover { background: #eef0f3; color: #1b2330; }
.button-approve { background: #146c2e; color: #fff; }
.button-approve:hover { background: #0f5323; }
.button-reject { background: #fff; color: #a61b1b; border-color: #a61b1b; }
.button-reject:hover { background: #fdecec; }

.table-wrap { overflow-x: auto; }
table { width: 100%; border-collapse: collapse; background: #fff; font-size: 0.925rem; }
caption { text-align: left; font-weight: 600; padding: 0.4rem 0; color: #1b2330; }
th, td { text-align: left; vertical-align: top; padding: 0.5rem 0.6rem; border-bottom: 1px solid #e3e6eb; }
thead th { font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.04em; color: #4b5563; border-bottom: 2px solid #c3cad6; white-space: nowrap; }
tbody th { font-weight: 600; }
tbody tr:hover { background: #f7f9fc; }
table.runs { border: 1px solid #d5d9e0; border-radius: 8px; }
.runs td:first-child { white-space: nowrap; }
.cell-text { max-width: 22rem; overflow-wrap: anywhere; }
.run-link { display: inline-block; position: relative; white-space: nowrap; font-weight: 600; }
.nowrap { white-space: nowrap; }
::placeholder { color: #5b6472; opacity: 1; }
.cell-code { max-width: 28rem; overflow-wrap: anywhere; }
.empty { text-align: center; color: #4b5563; padding: 1.5rem; }
.pager { display: flex; gap: 1rem; margin: 0.75rem 0; }
.live-status { min-height: 1.5em; margin: 0; font-size: 0.875rem; color: #4b5563; }

.badge { display: inline-block; padding: 0.1rem 0.55rem; border-radius: 999px; font-size: 0.8rem; font-weight: 700; border: 1px solid currentColor; white-space: nowrap; }
.badge-completed, .badge-executed, .badge-resolved { background: #e7f5ec; color: #14532d; }
.badge-failed, .badge-rejected { background: #fdecec; color: #8a1c1c; }
.badge-expired { background: #f1f1f1; color: #404040; }
.badge-awaiting-approval, .badge-firing { background: #fff3df; color: #7a3e00; }
.badge-running, .badge-approved { background: #e8f0fe; color: #1e3a8a; }
.badge-queued, .badge-proposed, .badge-unknown { background: #eef0f3; color: #374151; }

.alert { border-radius: 8px; padding: 0.6rem 1rem; margin: 0.75rem 0; border: 1px solid; }
.alert p { margin: 0; }
.alert-error { background: #fdecec; border-color: #a61b1b; color: #6b1010; }
.alert-success { background: #e7f5ec; border-color: #146c2e; color: #0f3d1e; }
.error-text { color: #a61b1b; }
.notice-readonly { background: #f7f8fa; border-left: 4px solid #4b5563; padding: 0.6rem 0.8rem; margin: 0; }
.decision { border-color: #7a3e00; border-width: 2px; }
.chain-status { margin: 0 0 0.5rem; }
.chain-ok strong { color: #14532d; }
.chain-bad strong { color: #8a1c1c; }
details summary { cursor: pointer; color: #0b57d0; font-weight: 600; margin: 0.25rem 0; }
`;
