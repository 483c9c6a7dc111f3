/* Site search (public build only): the search box in the header queries the
 * Pagefind index built at build time (site_builder/render/search.py). The engine
 * (static/search-engine.js: Pagefind, the index's text rules) and the index are
 * fetched from this site only when the box is first used, so pages stay light.
 * The engine also builds each result's list item (item()), so this file, loaded on every page,
 * stays small. Eight results are listed at a time; 更多结果 lists eight more.
 * Keys: "/" anywhere outside a form field goes to the box; ArrowDown/ArrowUp move between the box,
 * the result links and the 更多结果 button (focus moves, so a screen reader reads each); Enter in the box opens
 * the first result shown for what is typed; Escape closes the list and returns to the box.
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
  // The edition's own index (en/pagefind/ for en/…): in the page's folder, or where 404.html's links start
  // (data-root; it is served at any depth). Every edition loads this script from the site's root.
  var editionRoot = new URL(box.getAttribute("data-root") || ".", location.href);
  var engine = null;
  var MAX_RESULTS = 8;

  function load() {
    if (!engine) {
      engine = import(new URL("static/search-engine.js", siteRoot).href).then(function (module) {
        return module.open(editionRoot).then(function (find) { return { find: find, text: module }; });
      });
      engine.catch(function () { engine = null; });
    }
    return engine;
  }

  function ui() { return JSON.parse(document.documentElement.dataset.ui || "{}"); }  // in the course's language

  /** ``results`` listed (after those listed already, with ``more``) of the ``total`` pages found for ``term``;
   *  the status says how many are found and how many listed. Returns the items added. */
  function render(results, total, term, text, more) {
    var asked = list.querySelector(".search-more");  // the button that asked for these
    if (!more) list.textContent = "";
    else if (asked) asked.remove();
    var words = ui(), added = results.map(function (result) { return list.appendChild(text.item(result)); });
    var shown = list.children.length;
    var said = !shown ? words.not_found || "%(term)s: 0"
      : total > shown ? words.found_more || "%(term)s: %(n)s (%(shown)s)" : words.found || "%(term)s: %(n)s";
    summary.textContent = said.replace("%(term)s", term).replace("%(n)s", total).replace("%(shown)s", shown);
    status.textContent = summary.textContent;
    panel.hidden = false;
    return added;
  }

  var shownFor = "";  // the query whose results the list shows

  /** ``found``'s results from ``from`` on, MAX_RESULTS of them, listed after those before; then, while some are
   *  left, a button that lists the next ones and takes the focus to the first of them. */
  function listFrom(found, from, term, text) {
    return Promise.all(found.results.slice(from, from + MAX_RESULTS).map(function (r) { return r.data(); }))
      .then(function (results) {
        var listed = list.querySelectorAll("li:not(.search-more)").length;
        if (input.value.trim() !== term || (from && listed !== from)) return;  // newer query; more listed already
        var added = render(results, found.results.length, term, text, from > 0);
        shownFor = term;
        if (from > 0 && added.length) added[0].querySelector("a").focus();  // where the reader reads on
        var next = from + results.length;
        if (next >= found.results.length) return;
        var item = list.appendChild(document.createElement("li"));
        var button = item.appendChild(document.createElement("button"));
        item.className = "search-more";
        button.type = "button";
        button.className = "tool-button";
        button.textContent = ui().more || "More";
        button.addEventListener("click", function () {
          button.disabled = true;
          listFrom(found, next, term, text).catch(function () { button.disabled = false; });
        });
      });
  }

  function search() {
    var term = input.value.trim();
    if (!term) { panel.hidden = true; list.textContent = ""; status.textContent = ""; return; }
    load().then(function (loaded) {
      return loaded.find(term).then(function (found) {
        if (found === null || input.value.trim() !== term) return;  // a newer query is on its way
        return listFrom(found, 0, term, loaded.text);
      });
    }).catch(function () {
      status.textContent = summary.textContent = ui().unavailable;
      panel.hidden = false;
    });
  }

  function links() { return Array.prototype.slice.call(list.querySelectorAll("a")); }

  input.addEventListener("focus", load, { once: true });
  input.addEventListener("input", search);
  input.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && !panel.hidden) { panel.hidden = true; event.stopPropagation(); }
    if (event.key === "ArrowDown" && links().length) {
      event.preventDefault();
      panel.hidden = false;
      links()[0].focus();
    }
    if (event.key === "Enter") {
      event.preventDefault();
      if (shownFor === input.value.trim() && links().length) links()[0].click();
      else search();
    }
  });
  list.addEventListener("keydown", function (event) {
    var all = Array.prototype.slice.call(list.querySelectorAll("a, button")), at = all.indexOf(document.activeElement);
    if (at < 0) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      var next = at + (event.key === "ArrowDown" ? 1 : -1);
      (next < 0 ? input : all[Math.min(next, all.length - 1)]).focus();
    } else if (event.key === "Escape") {
      event.stopPropagation();
      input.focus();  // first: focusing the box opens the list again
      panel.hidden = true;
    }
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    var target = event.target;
    if (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return;
    event.preventDefault();
    input.focus();
    input.select();
  });
  document.addEventListener("click", function (event) {
    if (!box.contains(event.target)) panel.hidden = true;
  });
  box.addEventListener("focusin", function () { if (list.childNodes.length) panel.hidden = false; });
})();
