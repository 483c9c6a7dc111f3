/* The search engine behind static/search.js, loaded the first time the box is used (so pages
 * stay light): Pagefind with the site's index, and the text rules of site_builder/render/search.py.
 *
 * The index holds Chinese as overlapping character pairs (键值缓存 → 键值 值缓 缓存);
 * terms() cuts a query by the same rule as search_terms() in search.py, and joined() puts
 * indexed text back together for titles and excerpts. A query is also searched in each wording
 * the glossary gives its terms (pagefind/synonyms.json), and lessons come before the reference
 * pages (the documents' ``tier`` filter).
 */
var CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff";
var CJK_MARKS = "\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65";
// Curly quotes, … and —: set apart (as a Chinese mark is) only beside Chinese (search.py _SHARED_PUNCT).
var SHARED = "\u2018-\u201f\u2026\u2014";
var PIECES = new RegExp("([" + CJK + "]+)|([" + CJK_MARKS + "])|([" + SHARED + "])", "g");
var CHINESE = new RegExp("^[" + CJK + CJK_MARKS + "]$");
var CJK_PAIR = new RegExp("^[" + CJK + "]{2}$");
var PAIR = new RegExp("^[" + CJK + "]{2}[^" + CJK + "]*$");
var CJK_START = new RegExp("^[" + CJK + "]"), CJK_END = new RegExp("[" + CJK + "]$");
var MARK_START = new RegExp("^[" + CJK_MARKS + "]"), MARK_END = new RegExp("[" + CJK_MARKS + "]$");
var LONE_SHARED = new RegExp("^[" + SHARED + "]$");
var BREAK = "\u00b6";  // ends every block of a document (search.py _END): read as a break, never shown
var LATIN = /[A-Za-z0-9]/;
var MAX_VARIANTS = 6;


/** ``text`` with each Chinese run and each mark set apart given to ``piece(run, mark)`` (a curly quote, … or —
 *  only beside Chinese: checked by hand, since a lookbehind would stop the script in Safari before 16.4). */
function cutText(text, piece) {
  return text.replace(PIECES, function (all, run, mark, shared, at, whole) {
    if (shared && !CHINESE.test(whole.charAt(at - 1)) && !CHINESE.test(whole.charAt(at + 1))) return all;
    return piece(run, mark || shared);
  });
}

/** Text as the index holds it: Chinese runs as overlapping pairs, punctuation apart (= search.py). */
export function terms(text) {
  return cutText(text, function (run, mark) {
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

/** Indexed text back as text: chained pairs (键值 值缓 缓存) become 键值缓存; marks kept per character;
 *  the end of a block becomes a space, unless Chinese text goes on after Chinese punctuation (输入。这一层). */
export function joined(pieces) {
  var words = [];  // every word with its piece's mark: a lone quote's neighbour may be in the next piece
  pieces.forEach(function (piece) {
    piece.text.split(/\s+/).forEach(function (word) { if (word) words.push({ text: word, mark: piece.mark }); });
  });
  var out = [];  // [character(s), marked]
  var last = "", ended = "", broken = false, lastApart = false, endedApart = false;
  words.forEach(function (item, k) {
    var word = item.text;
    if (word === BREAK) {
      broken = out.length > 0;
      if (last) { ended = last; endedApart = lastApart; }
      last = ""; lastApart = false;
      return;
    }
    // A curly quote, … or — alone was set apart beside Chinese: no space on either side of it (的“缓存”，
    // “KV cache”。); elsewhere it stood alone in the text (head 1 — the) and keeps its spaces.
    var next = words[k + 1] ? words[k + 1].text : "";
    var isApart = LONE_SHARED.test(word) && (CHINESE.test(last.slice(-1)) || CHINESE.test(next.charAt(0)));
    // Pagefind may leave punctuation on a word (缓存. at the end of a heading): it ends the run.
    if (PAIR.test(word) && CJK_PAIR.test(last) && last.charAt(1) === word.charAt(0)) {
      if (item.mark && out.length) out[out.length - 1][1] = true;
      out.push([word.slice(1), item.mark]);
    } else {
      // Spaces stay between Latin and Chinese (KV 缓存, 第 5 讲), not next to Chinese punctuation.
      var tight = broken ? (MARK_END.test(ended) || endedApart) && CJK_START.test(word) : (CJK_END.test(last) &&
        CJK_START.test(word)) || MARK_END.test(last) || MARK_START.test(word) || isApart || lastApart;
      if (out.length && !tight) out.push([" ", false]);
      // A pair goes in as two characters, so a marked pair chained after it marks only its own.
      if (PAIR.test(word)) out.push([word.charAt(0), item.mark], [word.slice(1), item.mark]);
      else out.push([word, item.mark]);
    }
    broken = false;
    last = word;
    lastApart = isApart;
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
  return joined([{ text: text || "", mark: false }]).map(function (r) { return r.text; }).join("").trim();
}


/** Whether Pagefind knows ``word`` as written. Pagefind drops a word it has never seen, and for a Latin
 *  word with no match it falls back to a shorter prefix (``qzxwv`` found the pages with "Q"), so a Latin
 *  word counts only when what its best page marks shares the word's first letters (up to four: a stem
 *  or a prefix being typed still counts). */
function known(pagefind, word) {
  return pagefind.search(word).then(function (found) {
    if (!found || !found.results.length) return false;
    if (!LATIN.test(word)) return true;
    return found.results[0].data().then(function (data) {
      var want = squeezed(word), need = Math.min(want.length, 4);
      var marks = (data.excerpt.match(/<mark>[^<]*<\/mark>/g) || []).map(function (m) {
        return m.replace(/<\/?mark>/g, "").toLowerCase();
      });
      // A mark is a word (KV) or a word with others joined to it (K/V, cached_ttft_ms): both are tried.
      var parts = marks.map(squeezed).concat([].concat.apply([], marks.map(function (m) {
        return m.split(/[^\p{L}\p{N}]+/u);
      })));
      return parts.some(function (part) {
        var same = 0;
        while (same < need && part.charAt(same) === want.charAt(same)) same++;
        return same >= need;
      });
    });
  });
}

function squeezed(word) { return word.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ""); }

/** The words of a query's unquoted text, Chinese runs as lists of pairs: [["缓存"], ["首个"], ["temperature"]]. */
function groups(text) {
  var out = [];
  cutText(text, function (run, mark) { return " " + (run ? "\u0001" + terms(run) + "\u0001" : mark) + " "; })
    .split("\u0001").forEach(function (part, i) {
      if (i % 2) out.push(part.split(" "));
      else part.split(/\s+/).filter(function (w) { return /[\p{L}\p{N}]/u.test(w); })
        .forEach(function (w) { out.push([w]); });
    });
  return out;
}

/** The words to search for ``text`` (unquoted): a word Pagefind does not know finds nothing, except a
 *  pair inside a Chinese run whose neighbours are both known (温度采样: 温度 and 采样 are words,
 *  度采 is not, and the run still means "both words"). Null when some word is unknown. */
function kept(pagefind, text, loose) {
  var runs = groups(text).map(function (run) { return loose ? apart(run) : run; });
  var flat = [].concat.apply([], runs);
  return Promise.all(flat.map(function (w) { return known(pagefind, w); })).then(function (ok) {
    var words = [], k = 0;
    for (var r = 0; r < runs.length; r++) {
      var run = runs[r], base = k;
      for (var i = 0; i < run.length; i++, k++) {
        if (ok[k]) { words.push(run[i]); continue; }
        if (i === 0 || i === run.length - 1 || !ok[base + i - 1] || !ok[base + i + 1]) return null;
      }
    }
    return words;
  });
}

/** A run of four or more characters read as two-character words side by side (缓存失效 → 缓存 失效):
 *  its pairs at even places, and the last. The most common shape of a Chinese compound, asked for
 *  when no lesson holds the run as written. */
function apart(run) {
  return run.length < 3 ? run : run.filter(function (pair, i) { return i % 2 === 0 || i === run.length - 1; });
}

/** Each way of writing ``term`` the glossary allows: its wording of a term replaced by every other
 *  wording a page may use (预填充 → prefill; TTFT → 首 token 时间). */
function variants(term, synonyms) {
  var out = [term];
  synonyms.forEach(function (group) {
    out = [].concat.apply([], out.map(function (asked) {
      var low = asked.toLowerCase();
      var hit = group.words.concat(group.also).filter(function (w) { return low.indexOf(w.toLowerCase()) >= 0; })
        .sort(function (a, b) { return b.length - a.length; })[0];
      if (!hit) return [asked];
      var at = low.indexOf(hit.toLowerCase());
      return [asked].concat(group.words.filter(function (w) { return w !== hit; }).map(function (w) {
        return asked.slice(0, at) + " " + w + " " + asked.slice(at + hit.length);
      }));
    }));
  });
  return out.filter(function (v, i) { return out.indexOf(v) === i; }).slice(0, MAX_VARIANTS);
}

/** The pages for one wording of a query, lessons first: [{result, lesson}], or [] when some word
 *  occurs nowhere or a quoted phrase is not on the page. */
function findOne(pagefind, term) {
  return findAs(pagefind, term, false).then(function (hits) {
    if (hits.some(function (hit) { return hit.lesson; })) return hits;
    return findAs(pagefind, term, true).then(function (apartHits) {
      return apartHits.filter(function (hit) { return hit.lesson; }).concat(hits);
    });
  });
}

function findAs(pagefind, term, loosely) {
  var parts = term.replace(/[“”]/g, '"').split('"');
  var loose = parts.filter(function (p, i) { return i % 2 === 0; }).join(" ");
  var phrases = parts.filter(function (p, i) { return i % 2 && terms(p); });
  if (loosely && phrases.length) return Promise.resolve([]);
  return kept(pagefind, parts.join(" "), loosely).then(function (words) {
    if (!words || !words.length) return [];
    var asked = words.join(" ");
    var exact = phrases.length ? pagefind.search(phrases.map(function (p) { return '"' + terms(p) + '"'; }).join(" ") +
                                                 " " + terms(loose)) : null;
    // Ranked without the quotes (Pagefind ranks phrase matches by page order, not by title and weight),
    // then narrowed to the pages that hold every quoted phrase.
    return Promise.all([pagefind.search(asked, { filters: { tier: "lesson" } }), pagefind.search(asked), exact])
      .then(function (found) {
        var held = {}, lesson = {};
        if (found[2]) found[2].results.forEach(function (r) { held[r.id] = true; });
        found[0].results.forEach(function (r) { lesson[r.id] = true; });
        return found[1].results.filter(function (r) { return !found[2] || held[r.id]; })
          .map(function (r) { return { result: r, lesson: Boolean(lesson[r.id]) }; });
      });
  });
}

/** Pagefind for the edition at ``siteRoot`` (a URL: the site's root, or a translation's folder), its shards
 *  merged; resolves to ``find``. */
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
      }).then(function () {
        return fetch(new URL("pagefind/synonyms.json", siteRoot)).then(function (response) {
          return response.ok ? response.json() : [];
        });
      }).then(function (synonyms) { return find.bind(null, pagefind, synonyms); });
    });
  });
}

/** The pages for ``term`` in rank order (lessons first, then by Pagefind's score over every wording of
 *  the term), or null when a newer search replaced this one. */
function find(pagefind, synonyms, term) {
  var asked = query(term);
  if (!asked) return Promise.resolve({ results: [] });
  return pagefind.debouncedSearch(asked.replace(/"/g, ""), {}, 250).then(function (latest) {
    if (!latest) return null;
    return Promise.all(variants(term, synonyms).map(function (v) { return findOne(pagefind, v); }))
      .then(function (all) {
        var best = {};
        [].concat.apply([], all).forEach(function (hit) {
          var held = best[hit.result.id];
          if (!held || hit.result.score > held.result.score) best[hit.result.id] = hit;
        });
        var ranked = Object.keys(best).map(function (id) { return best[id]; }).sort(function (a, b) {
          return (b.lesson - a.lesson) || (b.result.score - a.result.score);
        });
        return { results: ranked.map(function (hit) { return hit.result; }) };
      });
  });
}


// ------------------------------------------------------------ results --
// Each result as a list item for static/search.js: its title (and the part of the page it lands on)
// as a link, and Pagefind's excerpt parsed in an inert document, of which only text and <mark> survive.

function excerptNodes(html, heading) {
  var doc = new DOMParser().parseFromString("<p>" + html + "</p>", "text/html");
  var out = document.createElement("p");
  out.className = "search-excerpt";
  var pieces = [];
  doc.body.firstChild.childNodes.forEach(function (node) {
    pieces.push({ text: node.textContent, mark: node.nodeName === "MARK" });
  });
  joined(withoutHeading(pieces, heading)).forEach(function (run) {
    if (!run.mark) return out.append(run.text);
    // Pagefind marks a word with the punctuation it touches ("cache,"): the highlight holds the word alone
    // (sentence marks, quotes and brackets only: 50% and C# keep their signs).
    var parts = MARKED.exec(run.text) || ["", "", run.text, ""];
    var mark = document.createElement("mark");
    mark.textContent = parts[2];
    out.append(parts[1], mark, parts[3]);
  });
  // An excerpt is a window of about thirty words: one that stops inside a sentence says so.
  if (out.textContent.trim() && !STOPPED.test(out.textContent)) out.append("…");
  return out;
}

var EDGE = "[.,;:!?…，。；：！？、“”‘’\"'()（）《》「」『』]";
var MARKED = new RegExp("^(" + EDGE + "*)(.+?)(" + EDGE + "*)$", "s");
/** An excerpt's end that ends a sentence: a full stop, question or exclamation mark, or …, then closing quotes. */
var STOPPED = /[。！？.!?…][”’」』)）"']*\s*$/;

/** ``pieces`` (Pagefind's excerpt) without the end of ``heading`` they start with: Pagefind starts an excerpt a few
 *  words before the match, often inside the heading the link above already shows (…的一个词：哪些缓存条目跟着失效 ¶
 *  把较早的…). Cut only when all before the first block break (search.py _END) is the heading's end. */
function withoutHeading(pieces, heading) {
  var raw = pieces.map(function (piece) { return piece.text; }).join("");
  var at = raw.indexOf(BREAK);
  var start = at < 0 ? "" : plain(raw.slice(0, at));
  if (!start || heading.slice(heading.length - start.length) !== start || !raw.slice(at + 1).trim()) return pieces;
  var cut = at + 1, kept = [];
  pieces.forEach(function (piece) {
    var drop = Math.min(cut, piece.text.length);
    cut -= drop;
    if (piece.text.length > drop) kept.push({ text: piece.text.slice(drop), mark: piece.mark });
  });
  return kept;
}

/** The part of the page that matched best, so the link lands on the right state or section: the most
 *  matched words, each counted by its weight (a word in a state's title counts more than in its text). */
function bestPart(result) {
  var best = null, bestScore = 0;
  (result.sub_results || []).forEach(function (sub) {
    var score = (sub.weighted_locations || []).reduce(function (sum, at) { return sum + at.weight; }, 0) ||
      (sub.locations || []).length;
    if (score > bestScore) { best = sub; bestScore = score; }
  });
  return best;
}

/** A result's list item: a link to the part of the page that matched best, and its excerpt. */
export function item(result) {
  var part = bestPart(result);
  var title = plain((result.meta && result.meta.title) || result.url);
  var partTitle = part && plain(part.title || "");
  var li = document.createElement("li");
  var link = document.createElement("a");
  link.href = part ? part.url : result.url;
  link.textContent = partTitle && partTitle !== title ? title + " · " + partTitle : title;
  li.appendChild(link);
  li.appendChild(excerptNodes(part ? part.excerpt : result.excerpt, partTitle || title));
  return li;
}
