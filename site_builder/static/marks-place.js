/* Where a mark's label goes (static/marks.js fetches this the first time a mark is shown): each label where it
 * covers the least of the figure as shown, read from a canvas, and of the labels placed before it. */

// Where a label may sit, best first: above its box, like a caption over what it names; under it; either of those
// ending at the box's right edge; beside it, after then before; and inside the box's top only as the last resort,
// where it hides the first words of what it marks.
var PLACES = ["", "label-under", "label-end", "label-under label-end", "label-after", "label-before",
              "label-inside"];
var TOLERATED = 0.01;  // a label may cover this share of its area in ink (a tick, a grid line's crossing)
// Ink is a channel this far from the background: text, lines and the palette's colours, not the pale fills a
// label may cover (#c8c8c8 is 55 from white, and a screen may show it a few levels lighter than a canvas reads).
var INK = 80;

/** Put each label where it covers the least of the figure's ink and of the labels placed before it, within the
 * figure: a later place only when it covers less than the ones before it. */
export function placeLabels(el, img) {
  var outlines = el.querySelectorAll(".mark-outline");
  var ink = inkOf(img), image = img.getBoundingClientRect(), frame = el.getBoundingClientRect();
  var placed = [];
  outlines.forEach(function (outline) {
    var label = outline.querySelector(".mark-outline-label");
    var pad = parseFloat(getComputedStyle(label).paddingLeft), best = null;
    PLACES.forEach(function (place) {
      outline.className = "mark-outline " + place;
      var r = label.getBoundingClientRect();
      // The layer clips what leaves it: the label's text must stay whole (its padding may go).
      var outside = r.top < frame.top || r.bottom > frame.bottom ||
        r.left + pad < frame.left || r.right - pad > frame.right;
      if (outside && place !== "label-inside") return;
      var covered = inkIn(ink, image, r);
      var cost = (covered > TOLERATED * r.width * r.height ? covered : 0) +
        (placed.some(function (p) { return overlap(p, r); }) ? 2 * r.width * r.height : 0);
      if (!best || cost < best.cost) best = { place: place, cost: cost };
    });
    outline.className = "mark-outline " + best.place;
    placed.push(label.getBoundingClientRect());
  });
}

function overlap(a, b) { return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom; }

/** Pixels of ink under the page rectangle ``r`` (0 where ``ink`` is unknown). */
function inkIn(ink, image, r) {
  if (!ink) return 0;
  var x = span(r.left, r.right, image.left, ink.w / image.width, ink.w);
  var y = span(r.top, r.bottom, image.top, ink.h / image.height, ink.h);
  var n = 0;
  for (var row = y[0]; row < y[1]; row++) {
    for (var i = row * ink.w + x[0], end = row * ink.w + x[1]; i < end; i++) n += ink.mask[i];
  }
  return n;
}

/** The image's pixel columns (or rows) from page coordinate ``from`` to ``to``: [first, end), empty when outside. */
function span(from, to, origin, scale, size) {
  var first = Math.max(0, Math.min(size, Math.floor((from - origin) * scale)));
  return [first, Math.max(first, Math.min(size, Math.ceil((to - origin) * scale)))];
}

/** Where the image as shown has ink, one byte a pixel (``mask[y * w + x]``): the image drawn on a canvas at its
 * size on the page, a pixel being ink when a channel stands out from the figure's background (its most common
 * colour) by more than INK. Kept until the image changes size or source; null while it has no size (not loaded,
 * in a hidden state) or where the browser will not read it back, and the labels are then placed as if the figure
 * were empty. */
function inkOf(img) {
  var w = img.offsetWidth, h = img.offsetHeight, src = img.currentSrc;
  if (!img.complete || !img.naturalWidth || !w || !h) return null;
  var ink = img.lessonInk;
  if (ink && ink.w === w && ink.h === h && ink.src === src) return ink;
  var canvas = document.createElement("canvas");
  canvas.width = w;
  canvas.height = h;
  var context = canvas.getContext("2d", { willReadFrequently: true }), data;
  try {
    context.drawImage(img, 0, 0, w, h);
    data = context.getImageData(0, 0, w, h).data;
  } catch (e) { return null; }
  var back = background(data), mask = new Uint8Array(w * h);
  for (var p = 0, i = 0; p < mask.length; p++, i += 4) {
    mask[p] = data[i + 3] > 127 && (back === null || Math.abs(data[i] - back[0]) > INK ||
      Math.abs(data[i + 1] - back[1]) > INK || Math.abs(data[i + 2] - back[2]) > INK) ? 1 : 0;
  }
  img.lessonInk = ink = { w: w, h: h, src: src, mask: mask };
  return ink;
}

/** The most common colour of a sample of the pixels, or null when most of them are transparent (then every opaque
 * pixel is ink: our figures are drawn on an opaque background). */
function background(data) {
  var counts = new Map(), top = null, most = 0;
  for (var i = 0; i < data.length; i += 4 * 37) {
    var key = data[i + 3] > 127 ? (data[i] << 16) | (data[i + 1] << 8) | data[i + 2] : -1;
    var n = (counts.get(key) || 0) + 1;
    counts.set(key, n);
    if (n > most) { most = n; top = key; }
  }
  return top === -1 ? null : [top >> 16, (top >> 8) & 255, top & 255];
}
