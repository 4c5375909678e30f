// The reader's checks, run in the page by __tests__/github-screen.ts after the Markdown is rendered:
// draws the Mermaid fences as GitHub does, then looks at the screen as a person would. Returns what
// that person would object to; an empty list when the screen reads well.
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- called by name from the test
async function inspectScreen() {
  const problems = [];
  const article = document.querySelector('article');
  const label = (element) => JSON.stringify((element.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 60));

  // Mermaid: GitHub draws a ```mermaid fence as a chart.
  const fences = [...article.querySelectorAll('pre > code.language-mermaid')];
  const charts = fences.map((code) => {
    const chart = document.createElement('div');
    chart.className = 'mermaid';
    chart.textContent = code.textContent;
    code.parentElement.replaceWith(chart);
    return chart;
  });
  if (charts.length) {
    const mermaid = window.mermaid;
    mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
    try {
      await mermaid.run({ nodes: charts });
    } catch (error) {
      problems.push(`Mermaid could not draw a chart: ${String(error)}`);
    }
  }
  charts.forEach((chart, i) => {
    const svg = chart.querySelector('svg');
    const box = svg?.getBoundingClientRect();
    const marks = svg?.querySelectorAll('rect, path, line, text').length ?? 0;
    if (!svg || !box || box.width === 0 || box.height === 0 || marks < 3) problems.push(`Mermaid chart ${i + 1} was not drawn (${marks} marks)`);
    else if (/syntax error/i.test(svg.textContent ?? '')) problems.push(`Mermaid chart ${i + 1} shows an error: ${label(svg)}`);
  });

  // Nothing wider than the page: a table or block that scrolls sideways hides what is past the edge.
  const width = article.clientWidth;
  [...article.querySelectorAll('table, pre')].forEach((element) => {
    const el = element;
    if (el.scrollWidth > el.clientWidth + 1) {
      problems.push(`${el.tagName.toLowerCase()} ${label(el)} is ${el.scrollWidth} px wide in a ${el.clientWidth} px column: it scrolls sideways and hides its right part`);
    }
  });
  if (article.scrollWidth > width + 1) problems.push(`the page is ${article.scrollWidth} px wide in a ${width} px column`);

  // Every table with a header, and no empty rows.
  [...article.querySelectorAll('table')].forEach((table) => {
    const rows = [...table.rows];
    const head = rows[0];
    const headers = head ? [...head.cells].filter((cell) => cell.tagName === 'TH') : [];
    if (!head || headers.length === 0) problems.push(`table ${label(table)} has no header row`);
    rows.forEach((row, i) => {
      if ([...row.cells].every((cell) => (cell.textContent ?? '').trim() === '' && !cell.querySelector('img, svg'))) {
        problems.push(`table ${label(table)} has an empty ${i === 0 ? 'header ' : ''}row`);
      }
    });
  });

  // No Markdown or HTML left as text: what the renderer did not turn into formatting shows as marks.
  const RAW = [
    ['an HTML tag', /<\/?[a-z][a-z0-9]*(\s[^>]*)?\/?>/i],
    ['an HTML entity', /&(?:[a-z]+|#\d+|#x[0-9a-f]+);/i],
    ['bold marks', /\*\*[^*\s][^*]*\*\*/],
    ['a backtick', /`/],
    ['a heading mark', /(^|\n)\s*#{1,6} \S/],
    ['a table row', /\|\s*:?-{3,}|^\s*\|.*\|\s*$/m],
    ['a Markdown link', /\[[^\]]+\]\([^)\s]+\)/],
    ['a code fence', /```|~~~/]
  ];
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => (node.parentElement?.closest('code, pre, svg, .mermaid') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT)
  });
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent ?? '';
    for (const [what, pattern] of RAW) {
      const found = pattern.exec(text);
      if (found) problems.push(`${what} left as text: ${JSON.stringify(text.slice(Math.max(0, found.index - 20), found.index + 40))}`);
    }
  }
  return problems;
}

/**
 * Where the innermost element whose text contains `wanted` lies, in px below the top of the article
 * (the screenshot's top); undefined when none holds it.
 */
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- called by name from the test
function whereIs(wanted) {
  const article = document.querySelector('article');
  const said = (element) => (element.textContent ?? '').replace(/\s+/g, ' ').includes(wanted);
  const holders = [...article.querySelectorAll('*')].filter((element) => said(element) && ![...element.children].some(said));
  if (holders.length === 0) return undefined;
  const box = holders[0].getBoundingClientRect();
  const origin = article.getBoundingClientRect().top;
  return { top: Math.round(box.top - origin), bottom: Math.round(box.bottom - origin) };
}
