// The tables of the bench report, in markdown: a header row, its rule, a row per result.

/** `header` is the column names, each row an array of cells (strings or numbers). */
export function markdownTable(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)];
}
