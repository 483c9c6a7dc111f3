/* Mark outlines, in both sites. A {mark} reference (a.mark-ref) names a region of a
 * figure; the figure carries its marks' boxes (data-marks: name → [left, top, right,
 * bottom, label] as fractions of the image, recorded by the build from matplotlib's
 * extents). Hovering or focusing a reference outlines the region with a box laid over
 * the image; the SVG itself is never touched. The box follows the image's rendered
 * size, so it scales with the page, the projector and print.
 *
 * window.lessonMarks.show(figure, names) / .clear(figure) let the presentation code
 * (present.js) outline a pointing step; a hover shows its own outline and then puts
 * the step's back.
 */
(function () {
  "use strict";

  var held = new Map();  // figure → names outlined by the presentation (restored after a hover)

  function marksOf(figure) {
    if (!figure.lessonMarks) {
      try { figure.lessonMarks = JSON.parse(figure.dataset.marks || "{}"); } catch (e) { figure.lessonMarks = {}; }
    }
    return figure.lessonMarks;
  }

  /** The figure a reference points at: the one in its own state, else the first on the page. */
  function figureFor(ref) {
    var selector = 'figure[data-figure="' + ref.dataset.figure + '"]';
    var state = ref.closest(".state");
    return (state && state.querySelector(selector)) || document.querySelector(selector);
  }

  function layer(figure) {
    var card = figure.querySelector(".figure-card");
    var el = card.querySelector(".mark-layer");
    if (!el) {
      el = document.createElement("div");
      el.className = "mark-layer";
      el.setAttribute("aria-hidden", "true");
      card.appendChild(el);
    }
    return el;
  }

  /** Outline the named marks of a figure (replacing what was outlined there). */
  function draw(figure, names) {
    var img = figure.querySelector(".figure-card img");
    var boxes = marksOf(figure);
    var el = layer(figure);
    el.textContent = "";
    el.dataset.marks = names.join(" ");
    el.dataset.count = String(names.length);  // the dim around a box only when there is one box
    if (!img || !names.length) return Promise.resolve();
    names.forEach(function (name) {
      var box = boxes[name];
      if (!box) return;
      var outline = el.appendChild(document.createElement("div"));
      outline.className = "mark-outline";
      outline.dataset.mark = name;
      var label = outline.appendChild(document.createElement("span"));
      label.className = "mark-outline-label";
      label.textContent = box[4];
    });
    if (!img.complete) img.addEventListener("load", function () { place(figure); }, { once: true });
    return place(figure);
  }

  /** Position the outlines from the image's current box (called on every resize). */
  function place(figure) {
    var img = figure.querySelector(".figure-card img");
    var el = figure.querySelector(".mark-layer");
    if (!img || !el) return Promise.resolve();
    var boxes = marksOf(figure);
    var left = img.offsetLeft, top = img.offsetTop, w = img.offsetWidth, h = img.offsetHeight;
    el.querySelectorAll(".mark-outline").forEach(function (outline) {
      var box = boxes[outline.dataset.mark];
      // A few pixels of air so the outline does not cover the strokes it points at.
      outline.style.left = (left + box[0] * w - 4) + "px";
      outline.style.top = (top + box[1] * h - 4) + "px";
      outline.style.width = ((box[2] - box[0]) * w + 8) + "px";
      outline.style.height = ((box[3] - box[1]) * h + 8) + "px";
    });
    return placeLabels(el, img);
  }

  // Where each label goes (static/marks-place.js: it reads the figure's pixels) is fetched the first time a mark is
  // shown, so pages stay light; until then a label sits above its box, and if it cannot be fetched, under a box
  // with no room above it.
  var here = document.currentScript && document.currentScript.src, placer = null;

  function placeLabels(el, img) {
    if (!el.querySelector(".mark-outline")) return Promise.resolve();  // nothing shown: the image is not read
    if (!placer) placer = import(new URL("marks-place.js", here).href);
    return placer.then(function (module) { module.placeLabels(el, img); }, function () {
      var top = el.getBoundingClientRect().top;
      el.querySelectorAll(".mark-outline-label").forEach(function (label) {
        if (label.getBoundingClientRect().top < top) label.parentNode.classList.add("label-under");
      });
    });
  }

  /** Outline ``names`` on ``figure``; resolves once their labels are in place. */
  function show(figure, names) {
    held.set(figure, names.slice());
    return draw(figure, names);
  }

  function clear(figure) {
    held.delete(figure);
    draw(figure, []);
  }

  function namesIn(ref) { return [ref.dataset.mark]; }

  function enter(event) {
    var ref = event.target.closest && event.target.closest("a.mark-ref");
    if (!ref) return;
    var figure = figureFor(ref);
    if (!figure) return;
    draw(figure, namesIn(ref));
    figure.classList.add("is-pointed");
  }

  function leave(event) {
    var ref = event.target.closest && event.target.closest("a.mark-ref");
    if (!ref) return;
    var figure = figureFor(ref);
    if (!figure) return;
    figure.classList.remove("is-pointed");
    draw(figure, held.get(figure) || []);
  }

  function init() {
    document.addEventListener("mouseover", enter);
    document.addEventListener("mouseout", leave);
    document.addEventListener("focusin", enter);
    document.addEventListener("focusout", leave);
    var replace = function () { document.querySelectorAll("figure[data-marks]").forEach(place); };
    window.addEventListener("resize", replace);
    if (window.ResizeObserver) {
      var observer = new ResizeObserver(replace);
      document.querySelectorAll("figure[data-marks] .figure-card img").forEach(function (img) { observer.observe(img); });
    }
  }

  window.lessonMarks = { show: show, clear: clear, figureFor: figureFor };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
