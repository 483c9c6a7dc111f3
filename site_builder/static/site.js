/* Reader and teacher enhancements. The pages work without this file: every state
 * is visible in order and the step list is plain #fragment links (what prints,
 * what search engines and agents read). With it:
 *   - one state at a time; ←/→ when focus is in the stepper or on nothing, never
 *     with modifier keys or inside form controls; no wrap-around;
 *   - key and button moves replace the URL hash (no history growth); link clicks
 *     are real navigations, so Back works; a hash to anything inside a state opens it;
 *   - inactive states are hidden="until-found": find-in-page still reaches them;
 *   - presentation mode (teacher build) steps with clicker keys PageUp/PageDown/Home/End;
 *     its toggle, the notes toggle and the speaker window are present.js's (teacher build only).
 * The theme and the notes/present flags are set before first paint by the inline
 * script in <head>; this file only reacts to buttons and keys.
 */
(function () {
  "use strict";

  var root = document.documentElement;
  var reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  var steppers = [];

  function save(key, value) {
    try { localStorage.setItem(key, value); } catch (e) { /* storage disabled: the choice lasts for this page */ }
  }

  function forget(key) {
    try { localStorage.removeItem(key); } catch (e) { /* as above */ }
  }

  function behavior() { return reducedMotion.matches ? "auto" : "smooth"; }

  function inFormControl(el) {
    return !!(el && el.closest && el.closest("input, textarea, select, [contenteditable]:not([contenteditable='false'])"));
  }

  var idFromHash = window.lessonHashId;  // the <head> script's (templates/head.js): it marks a linked state

  // ---------------------------------------------------------------- theme --
  var THEMES = ["auto", "light", "dark"];
  // UI strings come from the page (base.html.j2, data-ui), in the course's language.
  var UI = JSON.parse(document.documentElement.dataset.ui || "{}");
  function say(key, n, total) {
    return (UI[key] || key).replace("%(n)s", n).replace("%(total)s", total);
  }
  var THEME_NAMES = { auto: say("theme_auto"), light: say("theme_light"), dark: say("theme_dark") };

  // Figures' dark variants are <source media="(prefers-color-scheme: dark)">; a theme the reader
  // picked overrides the system's, so the media query follows the choice.
  var FIGURE_MEDIA = { auto: "(prefers-color-scheme: dark)", light: "not all", dark: "all" };

  function paintFigures() {
    var media = FIGURE_MEDIA[root.dataset.theme || "auto"];
    document.querySelectorAll("source[data-dark-source]").forEach(function (source) {
      if (source.media !== media) source.media = media;
    });
  }

  function initTheme(button) {
    function paint() { button.textContent = say("theme") + THEME_NAMES[root.dataset.theme || "auto"]; }
    button.addEventListener("click", function () {
      var next = THEMES[(THEMES.indexOf(root.dataset.theme || "auto") + 1) % THEMES.length];
      if (next === "auto") { delete root.dataset.theme; forget("lesson:theme"); }
      else { root.dataset.theme = next; save("lesson:theme", next); }
      paint();
      paintFigures();
    });
    paint();
  }

  // -------------------------------------------------------------- stepper --
  function Stepper(el) {
    this.el = el;
    this.states = Array.prototype.slice.call(el.querySelectorAll(".state"));
    this.links = Array.prototype.slice.call(el.querySelectorAll("[data-step-link]"));
    this.prev = el.querySelector('[data-step="prev"]');
    this.next = el.querySelector('[data-step="next"]');
    var status = el.querySelector("[data-status]");
    this.count = status.appendChild(document.createElement("span"));
    this.title = status.appendChild(document.createElement("span"));
    this.title.className = "status-title";
    this.index = -1;
    el.classList.add("is-enhanced");
    this.states.forEach(function (state, i) {
      var heading = state.querySelector("h3");
      if (heading) heading.tabIndex = -1;  // where focus goes when the focused state hides
      // Find-in-page or a fragment link is about to reveal this hidden state.
      state.addEventListener("beforematch", function () { this.hold(); this.show(i, { url: true }); }.bind(this));
    }, this);
    this.prev.addEventListener("click", this.step.bind(this, -1));
    this.next.addEventListener("click", this.step.bind(this, 1));
    var start = this.indexOfId(idFromHash());
    this.show(start < 0 ? 0 : start, {});
  }

  /** A move no input asked for (a hash change, Back, Forward) must not shift what follows the stepper:
   *  the states' cell (site.css) keeps the height it had until the reader next presses or taps, when
   *  any change counts as asked for. (Held for good, at the tallest state's height, a short state left
   *  a screen of blank page on a phone.) */
  Stepper.prototype.hold = function () {
    var box = this.el.querySelector(".states");
    if (root.dataset.present === "on") return;
    box.style.minHeight = box.getBoundingClientRect().height + "px";
    var release = function () {
      box.style.minHeight = "";
      window.removeEventListener("pointerdown", release, true);
      window.removeEventListener("keydown", release, true);
    };
    window.addEventListener("pointerdown", release, true);
    window.addEventListener("keydown", release, true);
  };

  window.lessonSteppers = steppers;  // for present.js (teacher build)

  /** Index of the state that holds the element with this id, or -1. */
  Stepper.prototype.indexOfId = function (id) {
    var target = id ? document.getElementById(id) : null;
    var state = target ? target.closest(".state") : null;
    return state ? this.states.indexOf(state) : -1;
  };

  /** Show state i. how.url: replace the hash; how.remote: the move came from another window. */
  Stepper.prototype.show = function (i, how) {
    i = Math.max(0, Math.min(this.states.length - 1, i));
    if (i === this.index) return;
    var old = this.states[this.index];
    var hadFocus = old && old.contains(document.activeElement);
    var shown = this.states[i];
    this.states.forEach(function (state, k) {
      if (k === i) state.removeAttribute("hidden");
      else state.setAttribute("hidden", "until-found");
    });
    this.links.forEach(function (link, k) {
      if (k === i) link.setAttribute("aria-current", "step");
      else link.removeAttribute("aria-current");
    });
    this.prev.setAttribute("aria-disabled", i === 0 ? "true" : "false");
    this.next.setAttribute("aria-disabled", i === this.states.length - 1 ? "true" : "false");
    // Two spans so a phone can hide the title (it is the heading just below) but still announce it.
    this.count.textContent = say("step", i + 1, this.states.length);
    this.title.textContent = say("title_sep") + shown.querySelector("h3").textContent.trim();
    if (how.url && this.index !== -1 && this.indexOfId(idFromHash()) !== i) {
      history.replaceState(history.state, "", "#" + shown.id);
    }
    if (hadFocus) shown.querySelector("h3").focus({ preventScroll: true });
    if (this.index !== -1 && !reducedMotion.matches && shown.animate) {
      shown.animate([{ opacity: 0 }, { opacity: 1 }], { duration: 180, easing: "ease-out" });
    }
    var first = this.index === -1;
    this.index = i;
    prefetchFigure(this.states[i + 1]);
    // present.js (teacher build) tells the other window, walks this state's pointing steps and fits it
    // to the screen.
    this.el.dispatchEvent(new CustomEvent("lesson:step", { detail: { index: i, remote: !!how.remote, first: first } }));
  };

  Stepper.prototype.step = function (delta, event) {
    if (event && event.currentTarget.getAttribute("aria-disabled") === "true") return;
    this.go(this.index + delta);
  };

  /** A move by key or button: replace the hash, keep the new state's top in view. */
  Stepper.prototype.go = function (i) {
    this.show(i, { url: true });
    var state = this.states[this.index];
    if (root.dataset.present === "on") window.scrollTo({ top: 0, behavior: "auto" });
    else if (state.getBoundingClientRect().top < 0) state.scrollIntoView({ block: "start", behavior: behavior() });
  };

  /** The stepper a key press is for: the one holding focus, else the first when focus is on nothing. */
  function stepperFor(target) {
    for (var i = 0; i < steppers.length; i++) if (steppers[i].el.contains(target)) return steppers[i];
    var nowhere = target === document.body || target === root || !target;
    return nowhere || root.dataset.present === "on" || root.dataset.speaker === "on" ? steppers[0] : null;
  }

  function onKey(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    if (event.isComposing || inFormControl(event.target)) return;
    var present = root.dataset.present === "on";  // Esc, leaving it, is present.js's
    var clicker = present || root.dataset.speaker === "on";  // a presenter remote drives the speaker window too
    var stepper = stepperFor(event.target);
    if (!stepper) return;
    var last = stepper.states.length - 1;
    var targets = { ArrowLeft: stepper.index - 1, ArrowRight: stepper.index + 1 };
    if (clicker) {  // presenter clickers send PageUp/PageDown; in reading mode those keys scroll
      targets.PageUp = stepper.index - 1;
      targets.PageDown = stepper.index + 1;
      targets.Home = 0;
      targets.End = last;
    }
    if (!(event.key in targets)) return;
    event.preventDefault();
    stepper.go(targets[event.key]);
  }

  /** Back, Forward and link clicks: the hash decides; an empty hash is the first state. */
  function onHashChange() {
    var id = idFromHash();
    steppers.forEach(function (stepper) {
      var i = stepper.indexOfId(id);
      if (i < 0 && !id) i = 0;
      if (i >= 0 && i !== stepper.index) { stepper.hold(); stepper.show(i, {}); }
    });
    var target = id ? document.getElementById(id) : null;
    if (target && target.closest(".state")) {
      var top = target.getBoundingClientRect().top;
      if (top < 0 || top > window.innerHeight) target.scrollIntoView({ block: "start", behavior: "auto" });
    }
  }

  // ---------------------------------------------------------- copy text --
  function initCopy(button) {
    var target = document.getElementById(button.dataset.copyTarget);
    button.addEventListener("click", function () {
      var text = target.textContent;
      var done = function () { button.textContent = say("copied"); };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(done, function () { selectText(target); });
      } else {
        selectText(target);
        button.textContent = say("selected");
      }
    });
  }

  // Each block of code in the text gets a copy button, over its top right corner (placed over the
  // block, not above it, so adding it moves nothing on the page).
  function initCodeCopy(pre) {
    var holder = document.createElement("div");
    holder.className = "code-block";
    pre.parentNode.insertBefore(holder, pre);
    holder.appendChild(pre);
    var button = holder.appendChild(document.createElement("button"));
    button.type = "button";
    button.className = "tool-button copy-code";
    button.textContent = say("copy_code");
    button.addEventListener("click", function () {
      var done = function () { button.textContent = say("copied"); };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(pre.textContent).then(done, function () { selectText(pre); });
      } else {
        selectText(pre);
        button.textContent = say("selected");
      }
    });
  }

  function selectText(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  // --------------------------------------------------------------- print --
  // Print shows every state (CSS); open every <details> and load lazy images too.
  var opened = [];
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details:not([open])").forEach(function (d) { d.open = true; opened.push(d); });
    document.querySelectorAll("img[loading='lazy']").forEach(function (img) { img.loading = "eager"; });
  });
  window.addEventListener("afterprint", function () {
    opened.forEach(function (d) { d.open = false; });
    opened = [];
  });

  // Figures load lazily; the next state's figure is fetched while this one is read, so a step
  // forward shows it at once without loading every state's figure up front.
  function prefetchFigure(state) {
    var img = state && state.querySelector("img[loading='lazy']");
    if (!img) return;
    var fetchIt = function () { img.loading = "eager"; };
    if (document.readyState === "complete") fetchIt();
    else window.addEventListener("load", fetchIt, { once: true });
  }

  // ------------------------------------------------------------ site nav --
  // On a phone the page links are one scrolling row: bring the current page's link into it.
  function initNav() {
    var current = document.querySelector(".site-nav [aria-current='page']");
    var row = document.querySelector(".site-nav ul");
    if (current && row && row.scrollWidth > row.clientWidth) {
      row.scrollLeft = current.offsetLeft - row.offsetLeft - (row.clientWidth - current.offsetWidth) / 2;
    }
    if (!row) return;
    // Which ends of the row have links past them (site.css fades those ends).
    var edges = function () {
      var start = row.scrollLeft > 1, end = row.scrollLeft + row.clientWidth < row.scrollWidth - 1;
      row.dataset.more = start && end ? "both" : start ? "start" : end ? "end" : "none";
    };
    edges();
    row.addEventListener("scroll", edges, { passive: true });
    window.addEventListener("resize", edges);
  }

  // ---------------------------------------------------------- term cards --
  // A glossary term's card (a CSS ::after, site.css) starts at the term's left edge; near the right
  // edge of a phone it ran off the screen and widened the page. Before it shows, shift it left by
  // what would not fit (CSSOM, which the CSP allows; --card-shift is read by site.css).
  var CARD_MARGIN = 8;

  function placeCard(event) {
    var term = event.target.closest && event.target.closest("a.term");
    if (!term) return;
    var width = Math.min(22 * parseFloat(getComputedStyle(root).fontSize), 0.8 * root.clientWidth);
    var left = term.getBoundingClientRect().left;
    var shift = Math.min(0, root.clientWidth - CARD_MARGIN - (left + width));
    term.style.setProperty("--card-shift", Math.max(shift, CARD_MARGIN - left) + "px");
  }

  // ---------------------------------------------------------------- init --
  function init() {
    document.querySelectorAll("[data-js-only]").forEach(function (el) { el.hidden = false; });
    document.querySelectorAll("[data-theme-toggle]").forEach(initTheme);
    paintFigures();
    initNav();
    document.addEventListener("pointerover", placeCard);
    document.addEventListener("focusin", placeCard);
    document.querySelectorAll("[data-copy-target]").forEach(initCopy);
    document.querySelectorAll("main .prose pre").forEach(initCodeCopy);
    document.querySelectorAll("[data-stepper]").forEach(function (el) {
      if (el.querySelector(".state")) steppers.push(new Stepper(el));
    });
    document.addEventListener("keydown", onKey);
    window.addEventListener("hashchange", onHashChange);
    var id = idFromHash();
    var target = id ? document.getElementById(id) : null;
    if (target && target.closest(".state")) target.scrollIntoView({ block: "start", behavior: "auto" });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
