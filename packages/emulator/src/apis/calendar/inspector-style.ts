/**
 * The style rules of the Calendar page of the web inspector (inspector-page.ts): the week of
 * events, an event's detail and the tabs under it. The inspector adds them to its style sheet
 * (`ApiModule.page`); the colours are the sheet's variables.
 */
export const CALENDAR_PAGE_STYLE = `
.week { --hour: 40px; display: grid; grid-template-columns: 48px repeat(7, minmax(0, 1fr)); border: 1px solid var(--line); }
.week .head { padding: 4px; border-left: 1px solid var(--line); border-bottom: 1px solid var(--line); font-weight: 600; text-align: center; }
.week .allday-label { border-bottom: 1px solid var(--line); color: var(--muted); font-size: 11px; padding: 2px; }
.allday { grid-column: 2 / 9; display: grid; grid-template-columns: repeat(7, minmax(0, 1fr)); gap: 2px; padding: 2px 0; min-height: 22px; border-bottom: 1px solid var(--line); }
.allday .event { position: static; }
.gutter { position: relative; height: calc(var(--hour) * 24); }
.gutter .hour { position: absolute; right: 4px; font-size: 10px; color: var(--muted); transform: translateY(-50%); }
.day { position: relative; height: calc(var(--hour) * 24); border-left: 1px solid var(--line); background-image: linear-gradient(#eceff1 1px, transparent 1px); background-size: 100% var(--hour); }
.event { position: absolute; left: 2px; right: 2px; background: #d2e3fc; border-left: 3px solid var(--accent); border-radius: 3px; padding: 1px 4px; font-size: 11px; overflow: hidden; cursor: pointer; }
.event.selected { outline: 2px solid #174ea6; }
.kv { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; }
.kv dt { color: var(--muted); }
.kv dd { margin: 0; word-break: break-all; }
.tabs { display: flex; gap: 4px; margin: 12px 0 4px; }
.tabs button.active { background: var(--accent); color: #fff; border-color: var(--accent); }
`;
