/* Teacher build: pointing steps, a presentation that fits the screen, and the speaker
 * window that follows both. Works beside site.js (which owns states, keys for states,
 * the presentation toggle and the state channel) through two events it dispatches:
 * "lesson:step" on a stepper when its state changes, "lesson:present" on document.
 *
 *   - A pointing step is an item of a teacher note's list that holds a {mark}
 *     reference. In presentation mode PageDown first walks the current state's steps,
 *     outlining each step's marks on the figure, then advances to the next state;
 *     PageUp walks back the same way.
 *   - Presentation fits one state into the viewport: the figure gets the height left
 *     above the controls and the text shrinks (down to a floor) until nothing runs
 *     under the controls or off the screen.
 *   - The speaker window (?speaker=1, opened by the speaker-window button) shows the notes
 *     first, marks the current pointing step and keeps it in view.
 */
(function () {
  "use strict";

  var root = document.documentElement;
  if (!document.body.classList.contains("teacher-build")) return;
  var speaker = new URLSearchParams(location.search).get("speaker") === "1";
  if (speaker) root.dataset.speaker = "on";
  var channel = window.BroadcastChannel ? new BroadcastChannel("lesson-points:" + location.pathname) : null;
  var point = -1;
  var pending = null;
  var backwards = false;  // a step another window announced for a state this one has not shown yet
  // UI strings come from the page (base.html.j2, data-ui), in the course's language, as in site.js.
  var UI = JSON.parse(root.dataset.ui || "{}");
  function say(key) { return UI[key] || key; }
  var READABLE = 0.75;  // text scale below which a layout gives up width to the text instead
  var FIT_FLOOR = 0.5;

  function presenting() { return root.dataset.present === "on"; }
  function stepperEl() { return document.querySelector("[data-stepper].is-enhanced"); }
  function currentState() {
    var el = stepperEl();
    return el ? el.querySelector(".state:not([hidden])") : null;
  }

  /** The pointing steps of a state: note list items that name at least one mark. */
  function stepsOf(state) {
    return Array.prototype.filter.call(state.querySelectorAll("[data-teacher] li"), function (li) {
      return li.querySelector("a.mark-ref");
    });
  }

  function statusEl() {
    var el = stepperEl();
    var status = el && el.querySelector("[data-status]");
    if (!status) return null;
    var span = status.querySelector("[data-point-status]");
    if (!span) {
      span = status.appendChild(document.createElement("span"));
      span.className = "point-status";
      span.dataset.pointStatus = "";
    }
    return span;
  }

  /** Make step i (−1: none) of a state current: outline its marks, mark the note item. */
  function setPoint(state, i, how) {
    var steps = stepsOf(state);
    point = Math.max(-1, Math.min(steps.length - 1, i));
    steps.forEach(function (li, k) { li.classList.toggle("is-pointing", k === point); });
    var figure = state.querySelector("figure[data-marks]");
    var refs = point >= 0 ? Array.prototype.slice.call(steps[point].querySelectorAll("a.mark-ref")) : [];
    if (figure && window.lessonMarks) {
      var names = refs.filter(function (ref) { return ref.dataset.figure === figure.dataset.figure; })
        .map(function (ref) { return ref.dataset.mark; });
      if (names.length) window.lessonMarks.show(figure, names);
      else window.lessonMarks.clear(figure);
    }
    var status = statusEl();
    if (status && state === currentState()) {
      status.textContent = point >= 0 ? say("pointing").replace("%(n)s", point + 1).replace("%(total)s", steps.length) +
        refs.map(function (ref) { return ref.textContent; }).join(say("list_sep")) : "";
    }
    if (!how.remote && channel) channel.postMessage({ state: state.id, point: point });
    if (speaker && state === currentState()) keepInView(state);
  }

  /** In the speaker window: the current pointing step in view, else the state's title — below the sticky
   *  step bar, which had covered it (the state's scroll-margin-top clears the bar). */
  function keepInView(state) {
    var bar = stepperEl() && stepperEl().querySelector(".stepper-controls");
    var top = bar ? bar.getBoundingClientRect().bottom : 0;
    var pointing = state.querySelector("[data-teacher] li.is-pointing");
    var target = pointing || state.querySelector(".state-head");
    if (!target) return;
    var box = target.getBoundingClientRect();
    if (box.top >= top && box.bottom <= window.innerHeight) return;
    if (pointing) pointing.scrollIntoView({ block: "center", behavior: "auto" });
    else state.scrollIntoView({ block: "start", behavior: "auto" });
  }

  // Before site.js (capture on window): PageDown/PageUp move within the pointing steps first, on the
  // projected page and in the speaker window alike (a clicker may be plugged into either machine).
  window.addEventListener("keydown", function (event) {
    if (!(presenting() || speaker) || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey ||
        event.shiftKey || event.isComposing) return;
    if (event.key !== "PageDown" && event.key !== "PageUp") return;
    var state = currentState();
    if (!state) return;
    var last = stepsOf(state).length - 1;
    if (event.key === "PageDown" && point < last) setPoint(state, point + 1, {});
    else if (event.key === "PageUp" && point >= 0) setPoint(state, point - 1, {});
    else {  // past the steps: site.js moves to the next or previous state
      backwards = event.key === "PageUp";  // and going back lands on that state's last step
      return;
    }
    event.preventDefault();
  }, true);

  if (channel) {
    channel.onmessage = function (message) {
      var data = message.data || {};
      var state = data.state && document.getElementById(data.state);
      if (!state) return;
      if (state === currentState()) setPoint(state, data.point, { remote: true });
      else pending = data;
    };
  }

  /** Steps and outlines belong to the state on screen: forget those of the others. */
  function leaveOthers(state) {
    state.parentElement.querySelectorAll(".state").forEach(function (other) {
      if (other === state) return;
      other.querySelectorAll("li.is-pointing").forEach(function (li) { li.classList.remove("is-pointing"); });
      var figure = other.querySelector("figure[data-marks]");
      if (figure && window.lessonMarks) window.lessonMarks.clear(figure);
    });
  }

  function onStep(event) {
    var detail = event.detail || {};
    if (states && !detail.remote && !detail.first) states.postMessage({ stepper: event.currentTarget.id, index: detail.index });
    var state = currentState();
    if (!state) return;
    leaveOthers(state);
    var start = pending && pending.state === state.id ? pending.point : backwards ? stepsOf(state).length - 1 : -1;
    pending = null;
    backwards = false;
    setPoint(state, start, { remote: detail.remote });
    fit();
  }

  // ------------------------------------------------------ teacher tools --
  // The notes toggle (remembered; ?notes=1|0 overrides it for one window), the presentation toggle
  // and the speaker-window button. They live here, in the teacher build's own script, so the public
  // pages do not download them; site.js's steppers are window.lessonSteppers.
  function steppers() { return window.lessonSteppers || []; }
  function setPressed(button, on) { button.setAttribute("aria-pressed", on ? "true" : "false"); }

  // The state channel: a reader's two tabs of one lesson should not move together, a teacher's do.
  var states = window.BroadcastChannel ? new BroadcastChannel("lesson-steps:" + location.pathname) : null;
  if (states) {
    states.onmessage = function (message) {
      var data = message.data || {};
      steppers().forEach(function (stepper) {
        if (stepper.el.id === data.stepper) stepper.show(data.index, { url: true, remote: true });
      });
    };
  }

  var presentButtons = [];
  // What presenting turns off, put back by Esc. Opened with ?present=1 there was no "before":
  // the notes come back as the teacher last chose them.
  var beforePresent = null;

  function setPresent(on) {
    var stepper = steppers()[0];
    if (on) {
      beforePresent = { notes: root.dataset.notes, scrollY: window.scrollY, index: stepper ? stepper.index : -1 };
      root.dataset.present = "on";
      root.dataset.notes = "off";  // safe to project
    } else {
      var before = beforePresent || { notes: storedNotes(), scrollY: null, index: -2 };
      delete root.dataset.present;
      root.dataset.notes = before.notes;
      beforePresent = null;
      // Opened by its link (?present=1): a reload after Esc should not present again.
      var query = new URLSearchParams(location.search);
      if (query.has("present")) {
        query.delete("present");
        var rest = query.toString();
        history.replaceState(history.state, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
      }
    }
    presentButtons.forEach(function (b) { setPressed(b, on); });
    paintNotes();
    document.dispatchEvent(new CustomEvent("lesson:present", { detail: { on: on } }));
    if (on) window.scrollTo({ top: 0, behavior: "auto" });
    else if (stepper && before.index === stepper.index) window.scrollTo({ top: before.scrollY, behavior: "auto" });
    else if (stepper) stepper.states[stepper.index].scrollIntoView({ block: "start", behavior: "auto" });
  }

  function storedNotes() {
    try { return localStorage.getItem("lesson:notes") === "on" ? "on" : "off"; } catch (e) { return "off"; }
  }

  var notesButtons = [];

  function paintNotes() {
    notesButtons.forEach(function (b) { setPressed(b, root.dataset.notes === "on"); });
  }

  function initTeacherTools() {
    notesButtons = Array.prototype.slice.call(document.querySelectorAll("[data-notes-toggle]"));
    notesButtons.forEach(function (button) {
      button.addEventListener("click", function () {
        root.dataset.notes = root.dataset.notes === "on" ? "off" : "on";
        try { localStorage.setItem("lesson:notes", root.dataset.notes); } catch (e) { /* lasts for this page */ }
        paintNotes();  // a click is a choice (saved); ?notes= is not
        if (presenting()) fit();  // the notes shown or hidden change what must fit above the controls
      });
    });
    paintNotes();
    presentButtons = Array.prototype.slice.call(document.querySelectorAll("[data-present-toggle]"));
    presentButtons.forEach(function (button) {
      setPressed(button, root.dataset.present === "on");
      button.addEventListener("click", function () { setPresent(root.dataset.present !== "on"); });
    });
    document.querySelectorAll("[data-speaker-window]").forEach(function (button) {
      button.addEventListener("click", function () {
        var url = location.pathname + "?notes=1&speaker=1" + location.hash;
        window.open(url, "lesson-speaker", "popup,width=960,height=720");
      });
    });
    window.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && presenting() && !event.defaultPrevented) setPresent(false);
    });
  }

  // ------------------------------------------------------------------ fit --
  function clearFit() {
    document.querySelectorAll(".state").forEach(function (state) {
      state.style.removeProperty("--present-fit");
      delete state.dataset.layout;
      var img = state.querySelector(".figure-card img");
      if (img) { img.style.width = ""; img.style.height = ""; }
    });
  }

  function overflows(state, limit) {
    var bottom = 0;
    Array.prototype.forEach.call(state.children, function (child) {
      if (child.getClientRects().length) bottom = Math.max(bottom, child.getBoundingClientRect().bottom);
    });
    var wide = Array.prototype.some.call(state.querySelectorAll(".state-body > *"), function (el) {
      return el.scrollWidth > el.clientWidth + 1;
    });
    return bottom > limit + 0.5 || wide || document.documentElement.scrollWidth > window.innerWidth;
  }

  /** The figure as large as the column and the height left above the controls allow (also upwards
   *  of its natural size: a projector wants it big). */
  function sizeFigure(state, img, limit) {
    var figure = state.querySelector(".figure");
    var card = img.closest(".figure-card");  // the image may sit in a <picture> inside it
    var ratio = (img.getAttribute("height") || img.naturalHeight) / (img.getAttribute("width") || img.naturalWidth);
    img.style.width = img.style.height = "";
    var below = figure.getBoundingClientRect().bottom - img.getBoundingClientRect().bottom;
    var tall = limit - img.getBoundingClientRect().top - below - 6;
    var frame = card.offsetWidth - card.clientWidth + 2 * parseFloat(getComputedStyle(card).paddingLeft);
    var wide = (figure.clientWidth - frame) * ratio;
    var height = Math.max(120, Math.min(tall, wide));
    img.style.height = height + "px";
    img.style.width = height / ratio + "px";
  }

  /** Fit the current state, then show the states (site.css keeps a presentation opened by its link hidden
   *  until then, so its first shrink is not a shift on screen). */
  function fit() {
    fitState();
    root.dataset.fitted = "";
  }

  /** Shrink the current state until it fits above the controls (figure first gets what height is left). */
  function fitState() {
    clearFit();
    if (!presenting()) return;
    var state = currentState();
    var el = stepperEl();
    if (!state || !el) return;
    var limit = el.querySelector(".stepper-controls").getBoundingClientRect().top;
    var img = state.querySelector(".figure-card img");
    // First the figure-wide layout down to a readable text size, then a half-and-half one and one
    // that gives the text more (a state with a table needs the width), then smaller headings (body
    // text stops at 16 px: site.css).
    var tries = [["", 1, READABLE], ["balanced", 1, READABLE], ["text", 1, READABLE],
                 ["most-text", 1, FIT_FLOOR]];
    for (var t = 0; t < tries.length; t++) {
      if (tries[t][0]) state.dataset.layout = tries[t][0];
      else delete state.dataset.layout;
      for (var scale = tries[t][1]; scale >= tries[t][2] - 0.001; scale -= 0.05) {
        state.style.setProperty("--present-fit", scale.toFixed(2));
        if (img) sizeFigure(state, img, limit);
        if (!overflows(state, limit)) return;
      }
    }
  }

  function init() {
    document.querySelectorAll("[data-stepper]").forEach(function (el) { el.addEventListener("lesson:step", onStep); });
    initTeacherTools();
    document.addEventListener("lesson:present", function () {
      var state = currentState();
      if (state) setPoint(state, -1, {});
      fit();
    });
    window.addEventListener("resize", function () { if (presenting()) fit(); });
    var state = currentState();
    if (state) {
      setPoint(state, -1, { remote: true });
      if (presenting()) {
        if (document.fonts && document.fonts.ready) document.fonts.ready.then(fit);
        window.addEventListener("load", fit);
        fit();
      }
      if (speaker) keepInView(state);
    }
  }

  // After site.js's own DOMContentLoaded handler (scripts run in order; listeners fire in order).
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
