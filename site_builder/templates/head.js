(function (root) {
  var query = new URLSearchParams(location.search), theme = null, notes = null;
  try { theme = localStorage.getItem("lesson:theme"); notes = localStorage.getItem("lesson:notes"); } catch (e) {}
  if (theme === "light" || theme === "dark") root.dataset.theme = theme;
  if (query.get("present") === "1") root.dataset.present = "on";
  var asked = query.get("notes");
  root.dataset.notes = asked === "1" ? "on" : asked === "0" || root.dataset.present ? "off" : notes === "on" ? "on" : "off";
  root.classList.add("js");
})(document.documentElement);
