/* The language switcher of a course in several languages (templates/base.html.j2, render/editions.py).
 *
 * Each edition link goes to the same page in the other language; the stepper keeps the state the
 * reader is on in the URL's hash (#r55-b2), replacing it without a hashchange event, so the hash is
 * added when the link is followed, not when the page is made. States have the same anchors in every
 * edition (the build checks the states are the same, in the same order). */
(function () {
  "use strict";
  function follow(event) {
    var link = event.target.closest ? event.target.closest("a[data-edition]") : null;
    if (link) link.href = link.href.split("#")[0] + location.hash;
  }
  document.addEventListener("click", follow);
  document.addEventListener("auxclick", follow);  // a middle click opens the other edition in a new tab
  document.addEventListener("contextmenu", follow);  // "copy link" copies where the reader is
})();
