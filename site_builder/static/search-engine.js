/* The search engine behind static/search.js, loaded the first time the box is used (so pages
 * stay light): Pagefind with the site's index, and the text rules of site_builder/render/search.py.
 *
 * The index holds Chinese as overlapping character pairs (键值缓存 → 键值 值缓 缓存);
 * terms() cuts a query by the same rule as search_terms() in search.py, and joined() puts
 * indexed text back together for titles and excerpts.
 */
var CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff";
var CJK_PUNCT = "\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65\u2018-\u201f\u2026\u2014";
var PIECES = new RegExp("([" + CJK + "]+)|([" + CJK_PUNCT + "])", "g");
var CJK_PAIR = new RegExp("^[" + CJK + "]{2}$");
var PAIR = new RegExp("^[" + CJK + "]{2}[^" + CJK + "]*$");
var CJK_START = new RegExp("^[" + CJK + "]"), CJK_END = new RegExp("[" + CJK + "]$");
var PUNCT_START = new RegExp("^[" + CJK_PUNCT + "]"), PUNCT_END = new RegExp("[" + CJK_PUNCT + "]$");


/** Text as the index holds it: Chinese runs as overlapping pairs, punctuation apart (= search.py). */
function terms(text) {
  return text.replace(PIECES, function (all, run, mark) {
    if (!run) return " " + mark + " ";
    if (run.length === 1) return " " + run + " ";
    var pairs = [];
    for (var i = 0; i + 1 < run.length; i++) pairs.push(run.slice(i, i + 2));
    return " " + pairs.join(" ") + " ";
  }).split(/\s+/).filter(Boolean).join(" ");
}

/** The query for Pagefind: phrases in quotes ("…" or “…”) stay phrases, pairs and all. */
function query(text) {
  var parts = text.replace(/[“”]/g, '"').split('"');
  return parts.map(function (part, i) {
    var cut = terms(part);
    return i % 2 && cut ? '"' + cut + '"' : cut;
  }).filter(Boolean).join(" ");
}

/** Indexed text back as text: chained pairs (键值 值缓 缓存) become 键值缓存; marks kept per character. */
export function joined(pieces) {
  var out = [];  // [character(s), marked]
  var last = "";
  pieces.forEach(function (piece) {
    piece.text.split(/(\s+)/).forEach(function (word) {
      if (!word || /^\s+$/.test(word)) return;
      // Pagefind may leave punctuation on a word (缓存. at the end of a heading): it ends the run.
      if (PAIR.test(word) && CJK_PAIR.test(last) && last.charAt(1) === word.charAt(0)) {
        if (piece.mark && out.length) out[out.length - 1][1] = true;
        out.push([word.slice(1), piece.mark]);
      } else {
        // Spaces stay between Latin and Chinese (KV 缓存, 第 5 讲), not next to Chinese punctuation.
        var tight = (CJK_END.test(last) && CJK_START.test(word)) || PUNCT_END.test(last) || PUNCT_START.test(word);
        if (out.length && !tight) out.push([" ", false]);
        out.push([word, piece.mark]);
      }
      last = word;
    });
  });
  var runs = [];
  out.forEach(function (item) {
    var prev = runs[runs.length - 1];
    if (prev && prev.mark === item[1]) prev.text += item[0];
    else runs.push({ text: item[0], mark: item[1] });
  });
  return runs;
}

export function plain(text) {
  return joined([{ text: text || "", mark: false }]).map(function (r) { return r.text; }).join("");
}


/** Pagefind drops a word it has never seen and searches with the rest; a word that occurs
 *  nowhere must find nothing instead (the other words still narrow, since Pagefind ANDs them). */
function everyWordKnown(pagefind, asked) {
  var words = asked.replace(/"/g, " ").split(/\s+/).filter(function (w) { return /[\p{L}\p{N}]/u.test(w); });
  return Promise.all(words.map(function (word) {
    return pagefind.search(word).then(function (found) { return Boolean(found && found.results.length); });
  })).then(function (known) { return known.every(Boolean); });
}


/** Pagefind for the site at ``siteRoot`` (a URL), its shards merged; resolves to ``find``. */
export function open(siteRoot) {
  return import(new URL("pagefind/pagefind.js", siteRoot).href).then(function (pagefind) {
    // Result URLs are site-relative; the site may live under a sub-path.
    return pagefind.options({ baseUrl: siteRoot.pathname }).then(function () {
      // The index is space-separated text (search.py LANGUAGE). Pagefind takes the query's
      // language from <html lang> when it starts, and for zh-CN it would re-cut the pairs with
      // Intl.Segmenter; it reads the attribute synchronously, so it sees "en" for that instant.
      var root = document.documentElement, lang = root.getAttribute("lang");
      root.setAttribute("lang", "en");
      try { pagefind.init(); } finally { root.setAttribute("lang", lang); }
      // A site of more than search.py SHARD_PAGES pages has its index in shards, searched as one.
      return fetch(new URL("pagefind/shards.json", siteRoot)).then(function (response) {
        return response.ok ? response.json() : [];
      }).then(function (shards) {
        return Promise.all(shards.map(function (folder) {
          return pagefind.mergeIndex(new URL("pagefind/" + folder, siteRoot).href,
                                     { baseUrl: siteRoot.pathname, language: "en" });
        }));
      }).then(function () { return find.bind(null, pagefind); });
    });
  });
}

/** The pages for ``term`` in rank order, or null when a newer search replaced this one. */
function find(pagefind, term) {
  var asked = query(term);
  if (!asked) return Promise.resolve({ results: [] });
  // Ranked without the quotes (Pagefind ranks phrase matches by page order, not by title and
  // weight), then narrowed to the pages that hold every quoted phrase.
  var loose = asked.replace(/"/g, "");
  return pagefind.debouncedSearch(loose, {}, 250).then(function (found) {
    if (!found) return null;
    return Promise.all([everyWordKnown(pagefind, loose),
                        loose === asked ? found : pagefind.search(asked)]).then(function (both) {
      if (!both[0]) return { results: [] };
      var exact = {};
      both[1].results.forEach(function (r) { exact[r.id] = true; });
      return { results: found.results.filter(function (r) { return exact[r.id]; }) };
    });
  });
}
