/**
 * The style rules of the Search Ads 360 page of the web inspector (inspector-page.ts): the
 * sortable conversions table, a conversion's detail and its history. The inspector adds them
 * to its style sheet (`ApiModule.page`); the colours are the sheet's variables.
 */
export const SEARCHADS360_PAGE_STYLE = `
th.sortable { cursor: pointer; user-select: none; white-space: nowrap; }
th.sortable:hover, th[aria-sort] { color: var(--accent); }
.scroll { overflow-x: auto; }
.sa-detail { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 3fr); gap: 16px; margin-top: 8px; padding-top: 4px; border-top: 1px solid var(--line); }
tr.not-in-file td { color: var(--muted); }
#conversion-writes pre { margin: 0; max-height: 200px; white-space: pre; word-break: normal; }
`;
