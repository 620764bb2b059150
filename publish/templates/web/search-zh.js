// The web edition's query splitter (publish/templates/web/search-zh.js; Sphinx puts it into
// language_data.js). Sphinx's Chinese search cuts the pages into words with jieba, but the query
// only at spaces, so a phrase typed as one run ("缩放点积") matched nothing. This splitter (Sphinx's
// own, then each unknown run of Chinese cut into the longest words the index holds, left to right)
// finds the pages that hold every word of it, as "缩放 点积" does.
var splitQuery = (query) => {
  const terms = query.split(/[^\p{Letter}\p{Number}_\p{Emoji_Presentation}]+/gu).filter(t => t);
  const index = (typeof Search !== "undefined" && Search._index) || null;
  if (!index) return terms;
  const known = (w) => Object.hasOwn(index.terms, w) || Object.hasOwn(index.titleterms, w);
  const out = [];
  for (const term of terms) {
    if (!/[\u3400-\u9fff]/.test(term) || known(term.toLowerCase())) { out.push(term); continue; }
    for (let i = 0, j; i < term.length; i = j) {
      j = Math.min(term.length, i + 8);
      while (j > i + 1 && !known(term.slice(i, j).toLowerCase())) j--;
      if (j > i + 1 || known(term.slice(i, j))) out.push(term.slice(i, j));
    }
  }
  return out.length ? out : terms;
};
