/* Site search (public build only): the search box in the header queries the
 * Pagefind index built at build time (site_builder/search.py). Pagefind's own
 * JavaScript and index are fetched from this site only when the box is first
 * used, so pages stay light. Results are built as DOM nodes; Pagefind's excerpt
 * is parsed in an inert document and only its text and <mark> survive.
 *
 * The index holds Chinese as overlapping character pairs (键值缓存 → 键值 值缓 缓存);
 * terms() cuts the query by the same rule as search_terms() in search.py, and
 * joined() puts indexed text back together for titles and excerpts.
 */
(function () {
  "use strict";

  var box = document.querySelector("[data-search]");
  if (!box) return;
  var input = box.querySelector("input");
  var panel = box.querySelector("[data-search-results]");
  var status = box.querySelector("[data-search-status]");
  var list = box.querySelector("[data-search-list]");
  var summary = box.querySelector("[data-search-summary]");
  var siteRoot = new URL("..", document.currentScript.src);  // this file is <root>/static/search.js
  var engine = null;
  var MAX_RESULTS = 8;
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
  function joined(pieces) {
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

  function plain(text) {
    return joined([{ text: text || "", mark: false }]).map(function (r) { return r.text; }).join("");
  }

  function load() {
    if (!engine) {
      engine = import(new URL("pagefind/pagefind.js", siteRoot).href).then(function (pagefind) {
        // Result URLs are site-relative; the site may live under a sub-path.
        return pagefind.options({ baseUrl: siteRoot.pathname }).then(function () {
          // The index is space-separated text (search.py LANGUAGE). Pagefind takes the query's
          // language from <html lang> when it starts, and for zh-CN it would re-cut the pairs with
          // Intl.Segmenter; it reads the attribute synchronously, so it sees "en" for that instant.
          var root = document.documentElement, lang = root.getAttribute("lang");
          root.setAttribute("lang", "en");
          try { pagefind.init(); } finally { root.setAttribute("lang", lang); }
          // A large site's index comes in shards (search.py SHARD_MIN_PAGES), searched as one.
          return fetch(new URL("pagefind/shards.json", siteRoot)).then(function (response) {
            return response.ok ? response.json() : [];
          }).then(function (shards) {
            return Promise.all(shards.map(function (folder) {
              return pagefind.mergeIndex(new URL("pagefind/" + folder, siteRoot).href,
                                         { baseUrl: siteRoot.pathname, language: "en" });
            }));
          }).then(function () { return pagefind; });
        });
      });
      engine.catch(function () { engine = null; });
    }
    return engine;
  }

  function excerptNodes(html) {
    var doc = new DOMParser().parseFromString("<p>" + html + "</p>", "text/html");
    var out = document.createElement("p");
    out.className = "search-excerpt";
    var pieces = [];
    doc.body.firstChild.childNodes.forEach(function (node) {
      pieces.push({ text: node.textContent, mark: node.nodeName === "MARK" });
    });
    joined(pieces).forEach(function (run) {
      if (run.mark) {
        var mark = document.createElement("mark");
        mark.textContent = run.text;
        out.appendChild(mark);
      } else {
        out.appendChild(document.createTextNode(run.text));
      }
    });
    return out;
  }

  /** The part of the page that matched best, so the link lands on the right state or section. */
  function bestPart(result) {
    var best = null;
    (result.sub_results || []).forEach(function (sub) {
      var hits = (sub.locations || []).length;
      if (hits && (!best || hits > (best.locations || []).length)) best = sub;
    });
    return best;
  }

  function clean(title) { return plain(title).trim(); }

  function render(results, term) {
    list.textContent = "";
    summary.textContent = results.length ? "“" + term + "”：找到 " + results.length + " 个页面" : "“" + term + "”：没有找到";
    status.textContent = summary.textContent;
    results.forEach(function (result) {
      var part = bestPart(result);
      var title = clean((result.meta && result.meta.title) || result.url);
      var partTitle = part && clean(part.title || "");
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = part ? part.url : result.url;
      link.textContent = partTitle && partTitle !== title ? title + " · " + partTitle : title;
      item.appendChild(link);
      item.appendChild(excerptNodes(part ? part.excerpt : result.excerpt));
      list.appendChild(item);
    });
    panel.hidden = false;
  }

  /** Pagefind drops a word it has never seen and searches with the rest; a word that occurs
   *  nowhere must find nothing instead (the other words still narrow, since Pagefind ANDs them). */
  function everyWordKnown(pagefind, asked) {
    var words = asked.replace(/"/g, " ").split(/\s+/).filter(function (w) { return /[\p{L}\p{N}]/u.test(w); });
    return Promise.all(words.map(function (word) {
      return pagefind.search(word).then(function (found) { return Boolean(found && found.results.length); });
    })).then(function (known) { return known.every(Boolean); });
  }

  function search() {
    var term = input.value.trim();
    if (!term) { panel.hidden = true; list.textContent = ""; status.textContent = ""; return; }
    var asked = query(term);
    load().then(function (pagefind) {
      if (!asked) return { results: [] };
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
    }).then(function (found) {
      if (found === null || input.value.trim() !== term) return;  // a newer query is on its way
      return Promise.all(found.results.slice(0, MAX_RESULTS).map(function (r) { return r.data(); }))
        .then(function (results) { render(results, term); });
    }).catch(function () {
      status.textContent = summary.textContent = "搜索暂时不可用。";
      panel.hidden = false;
    });
  }

  input.addEventListener("focus", load, { once: true });
  input.addEventListener("input", search);
  input.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && !panel.hidden) { panel.hidden = true; event.stopPropagation(); }
    if (event.key === "Enter") search();
  });
  document.addEventListener("click", function (event) {
    if (!box.contains(event.target)) panel.hidden = true;
  });
  box.addEventListener("focusin", function () { if (list.childNodes.length) panel.hidden = false; });
})();
