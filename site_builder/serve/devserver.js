// Live reload and error overlay for `python build.py serve`.
// The dev server adds this script to HTML as it serves it; built pages never contain it.
// Styles are set through element.style (CSSOM), which the pages' Content-Security-Policy
// (style-src 'self') allows, unlike a <style> element or a style="" attribute.
(() => {
  "use strict";
  const script = document.currentScript;
  const pageBuild = Number(script && script.dataset.build);
  const scrollKey = "devserver-scroll:" + location.pathname;

  // The URL the server uses for this page: "/" is "/index.html".
  const here = () => {
    const path = decodeURI(location.pathname);
    return path.endsWith("/") ? path + "index.html" : path;
  };

  // Keep the reading position across a reload: a teacher edits the middle of a long page.
  const reload = () => {
    sessionStorage.setItem(scrollKey, String(window.scrollY));
    location.reload();
  };
  const saved = sessionStorage.getItem(scrollKey);
  if (saved !== null) {
    sessionStorage.removeItem(scrollKey);
    window.addEventListener("load", () => window.scrollTo(0, Number(saved)));
  }

  const el = (tag, style, text) => {
    const node = document.createElement(tag);
    Object.assign(node.style, style || {});
    if (text !== undefined) node.textContent = text;
    return node;
  };

  let host = null;
  const hide = () => {
    if (host) host.remove();
    host = null;
  };

  const show = (failure) => {
    hide();
    host = el("div", { position: "fixed", inset: "0", zIndex: "2147483647", overflow: "auto",
                       background: "rgba(20, 20, 20, 0.88)", padding: "2rem 1rem" });
    host.id = "devserver-overlay";
    const root = host.attachShadow({ mode: "open" });
    const box = el("section", { maxWidth: "60rem", margin: "0 auto", background: "#fff", color: "#1a1a1a",
                                borderTop: "6px solid #c0392b", borderRadius: "6px", padding: "1.2rem 1.5rem",
                                font: "15px/1.5 system-ui, sans-serif" });
    box.setAttribute("role", "alertdialog");
    const labels = failure.labels;  // in the course's language, from the server's catalogs
    box.setAttribute("aria-label", labels.failed);
    const count = failure.problems.length;
    const title = el("h2", { margin: "0 0 .3rem", fontSize: "1.2rem", color: "#c0392b" },
                     count ? labels.count : labels.crashed);
    const note = el("p", { margin: "0 0 1rem", color: "#555" }, labels.note);
    const close = el("button", { float: "right", font: "inherit", cursor: "pointer", border: "1px solid #999",
                                 borderRadius: "4px", background: "#f4f4f4", padding: ".1rem .6rem" }, labels.hide);
    close.type = "button";
    close.addEventListener("click", hide);
    box.append(close, title, note);
    const mono = { font: "13px/1.45 ui-monospace, 'Noto Sans Mono CJK SC', monospace" };
    for (const problem of failure.problems) {
      box.append(el("p", { ...mono, margin: "1rem 0 .3rem", fontWeight: "bold", whiteSpace: "pre-wrap" },
                    problem.text));
      if (!problem.context.length) continue;
      const pre = el("pre", { ...mono, margin: "0", padding: ".5rem 0", background: "#f6f6f6",
                              borderRadius: "4px", overflowX: "auto" });
      for (const line of problem.context) {
        pre.append(el("div", { padding: "0 .8rem", background: line.here ? "#fde2df" : "transparent" },
                      `${line.here ? ">" : " "} ${String(line.line).padStart(4)} | ${line.text}`));
      }
      box.append(pre);
    }
    if (failure.traceback) {
      box.append(el("pre", { ...mono, whiteSpace: "pre-wrap", background: "#f6f6f6", padding: ".6rem .8rem",
                             borderRadius: "4px" }, failure.traceback));
    }
    root.append(box);
    document.documentElement.append(host);
  };

  const events = new EventSource("/__dev/events");
  events.addEventListener("hello", (event) => {
    const state = JSON.parse(event.data);
    // A build finished between serving this page and connecting: this page may be stale.
    if (!state.failing && state.build !== pageBuild) reload();
  });
  events.addEventListener("reload", (event) => {
    const { urls } = JSON.parse(event.data);
    hide();
    if (urls.includes(here())) reload();
  });
  events.addEventListener("build-error", (event) => show(JSON.parse(event.data)));
})();
