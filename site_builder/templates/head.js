(function (root) {
  var query = new URLSearchParams(location.search), theme = null, notes = null;
  try { theme = localStorage.getItem("lesson:theme"); notes = localStorage.getItem("lesson:notes"); } catch (e) {}
  if (theme === "light" || theme === "dark") root.dataset.theme = theme;
  if (query.get("present") === "1") root.dataset.present = "on";
  var asked = query.get("notes");
  root.dataset.notes = asked === "1" ? "on" : asked === "0" || root.dataset.present ? "off" : notes === "on" ? "on" : "off";
  root.classList.add("js");
  // The id the hash names; a short #b2 means the state r55-b2 when no element has that id (site.js asks too).
  var hashId = window.lessonHashId = function () {
    var id = location.hash.slice(1), state;
    try { id = decodeURIComponent(id); } catch (e) {}
    if (id && !document.getElementById(id) && window.CSS && CSS.escape) {
      state = document.querySelector('.state[data-state="' + CSS.escape(id) + '"]');
      if (state) return state.id;
    }
    return id;
  };
  // Mark the linked state as the parser inserts it, so it shows from the first paint (site.css, data-linked).
  if (location.hash && window.MutationObserver) {
    var parsing = new MutationObserver(function () {
      var target = document.getElementById(hashId()), state = target && target.closest(".state");
      if (state) state.setAttribute("data-linked", "");
      if (target) parsing.disconnect();
    });
    parsing.observe(root, { childList: true, subtree: true });
    document.addEventListener("DOMContentLoaded", function () { parsing.disconnect(); });
  }
})(document.documentElement);
