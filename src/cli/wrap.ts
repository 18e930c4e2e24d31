// Help text within 100 columns: a longer line is wrapped at spaces; an option line's continuation
// lines start under its description (column 31), a paragraph's at its own indent.
export const HELP_WIDTH = 100;
const OPTION_COLUMN = 30;

function wrapLine(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const indent = /^ {2}--\S+/.test(line) ? ' '.repeat(OPTION_COLUMN) : (/^ */.exec(line)?.[0] ?? '');
  const lines: string[] = [];
  let rest = line;
  while (rest.length > width) {
    let cut = rest.lastIndexOf(' ', width);
    if (cut <= indent.length) cut = rest.indexOf(' ', width);
    if (cut < 0) break;
    lines.push(rest.slice(0, cut).trimEnd());
    rest = indent + rest.slice(cut + 1).trimStart();
  }
  lines.push(rest);
  return lines;
}

export function wrapHelp(text: string, width = HELP_WIDTH): string {
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width))
    .join('\n');
}
