/**
 * The inspector's page and style sheet (served by core/inspector.ts under `/__emulator/ui/`);
 * its script is app.ts, compiled to dist/ui/app.js. No inline script or style: the page is
 * served with a Content-Security-Policy of its own origin only. The tabs of the APIs' pages
 * are added by app.ts, between Requests and Notifications, and each API's style rules follow
 * these in the style sheet (`ApiModule.page`).
 */
export const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gspec emulator inspector</title>
<link rel="icon" type="image/svg+xml" href="/favicon.svg">
<link rel="stylesheet" href="style.css">
<script type="module" src="js/ui/app.js"></script>
</head>
<body>
<header>
  <strong>gspec emulator</strong>
  <nav>
    <a href="#/requests" data-view="requests">Requests</a>
    <a href="#/notifications" data-view="notifications">Notifications</a>
    <a href="#/control" data-view="control">Control</a>
  </nav>
  <span id="live" class="live" title="Server-sent events">connecting</span>
</header>
<main id="main"></main>
</body>
</html>
`;

export const STYLE_CSS = `
:root { --line: #d0d4da; --muted: #5f6773; --accent: #1a73e8; --error: #c5221f; }
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.4 system-ui, sans-serif; color: #202124; background: #fff; }
header { display: flex; gap: 24px; align-items: center; padding: 8px 16px; border-bottom: 1px solid var(--line); background: #f8f9fa; }
nav a { margin-right: 12px; color: var(--muted); text-decoration: none; padding: 4px 8px; border-radius: 4px; }
nav a.active { color: #fff; background: var(--accent); }
.live { margin-left: auto; color: var(--muted); }
.live.on { color: #188038; }
main { padding: 12px 16px; }
h2 { font-size: 15px; margin: 8px 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 3px 6px; border-bottom: 1px solid #eceff1; vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
tr.row { cursor: pointer; }
tr.row:hover, tr.row.selected { background: #e8f0fe; }
.status-error { color: var(--error); font-weight: 600; }
.filters { display: flex; gap: 8px; margin-bottom: 8px; align-items: center; }
input, select, button { font: inherit; padding: 3px 6px; }
button { cursor: pointer; }
pre { background: #f6f8fa; padding: 8px; overflow: auto; max-height: 320px; margin: 4px 0 12px; white-space: pre-wrap; word-break: break-all; }
.panel { border-left: 1px solid var(--line); padding-left: 12px; }
.panel h2, .panel p, .panel .error-box { overflow-wrap: anywhere; }
.requests { display: grid; grid-template-columns: minmax(0, 1fr) minmax(300px, 30%); gap: 16px; align-items: start; }
.requests > .panel { position: sticky; top: 8px; max-height: calc(100vh - 16px); overflow: auto; }
@media (max-width: 1000px) {
  .requests { grid-template-columns: minmax(0, 1fr); }
  .requests > .panel { position: static; max-height: none; border-left: 0; padding-left: 0; border-top: 1px solid var(--line); }
}
table.lines { table-layout: fixed; }
table.lines th, table.lines td { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#journal .col-time { width: 80px; }
#journal .col-method { width: 68px; }
#journal .col-user, #journal .col-operation { width: 14%; }
#journal .col-status { width: 64px; }
#journal .col-duration { width: 84px; }
#journal .col-units { width: 56px; }
.muted { color: var(--muted); }
.error-box { color: var(--error); border: 1px solid var(--error); padding: 6px; margin: 6px 0; }
.toolbar { display: flex; gap: 8px; align-items: center; margin: 8px 0; flex-wrap: wrap; }
.actions { display: flex; flex-direction: column; gap: 12px; max-width: 640px; }
`;
