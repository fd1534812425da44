// A table's column names when its header is several rows: a cell spanning columns above names a
// group ("Sessions" over "Cur | Max | Limit"), a cell spanning rows stands beside them (HAProxy's
// statistics, report tables). Each column is named by the texts over it, top to bottom: "Sessions
// Cur". Cells are placed as the HTML table model places them (a rowspan holds its column in the
// rows below). Used by synthesis to name a column and by the runtime to find it again.
import type * as cheerio from 'cheerio';

export interface HeadCell {
  text: string;
  colspan: number;
  rowspan: number;
}

/**
 * The name of each column under header rows. A column whose lowest header cell spans several
 * columns has no name of its own (''), as a one-row header's spanning cell names none; a cell
 * spanning the whole width over other rows is the table's caption, not part of a name.
 */
export function columnNames(rows: HeadCell[][]): string[] {
  const grid: (HeadCell | undefined)[][] = rows.map(() => []);
  rows.forEach((cells, r) => {
    let c = 0;
    for (const cell of cells) {
      while (grid[r]![c]) c++;
      for (let dr = 0; dr < cell.rowspan && r + dr < rows.length; dr++)
        for (let dc = 0; dc < cell.colspan; dc++) grid[r + dr]![c + dc] = cell;
      c += cell.colspan;
    }
  });
  const width = Math.max(0, ...grid.map((g) => g.length));
  const names: string[] = [];
  for (let k = 0; k < width; k++) {
    const over = grid.map((g) => g[k]);
    const leaf = over[over.length - 1];
    if (!leaf || leaf.colspan > 1) {
      names.push('');
      continue;
    }
    const parts: string[] = [];
    over.forEach((cell, r) => {
      if (!cell?.text || over[r - 1] === cell) return;
      if (rows.length > 1 && cell.colspan >= width && cell !== leaf) return; // a caption
      parts.push(cell.text);
    });
    names.push(parts.join(' '));
  }
  return names;
}

/** A header row's cells as `columnNames` reads them (spans clamped to 1..20). */
export function headCells($: cheerio.CheerioAPI, row: cheerio.Cheerio<any>, text: (cell: cheerio.Cheerio<any>) => string): HeadCell[] {
  return row
    .children('th, td')
    .toArray()
    .map((c) => ({ text: text($(c)), colspan: span($(c).attr('colspan')), rowspan: span($(c).attr('rowspan')) }));
}

const span = (v: string | undefined) => Math.max(1, Math.min(20, Number(v ?? 1) || 1));

/**
 * A table's header rows: its <thead> rows, else its leading rows of <th> cells only (a header
 * written in the body, as older pages do).
 */
export function headRows($: cheerio.CheerioAPI, table: cheerio.Cheerio<any>): cheerio.Cheerio<any>[] {
  const thead = table.find('> thead > tr').toArray();
  if (thead.length) return thead.map((r) => $(r));
  const rows: cheerio.Cheerio<any>[] = [];
  for (const r of table.find('> tbody > tr, > tr').toArray()) {
    if ($(r).children('td').length || !$(r).children('th').length) break;
    rows.push($(r));
  }
  return rows;
}
