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

  const mono = { font: "13px/1.45 ui-monospace, 'Noto Sans Mono CJK SC', monospace" };
  // A source line wraps (a long Chinese paragraph is one line) and its problem's column is marked.
  const sourceLine = (line, colour) => {
    const row = el("div", { padding: "0 .8rem 0 5.2rem", textIndent: "-4.4rem", whiteSpace: "pre-wrap",
                            overflowWrap: "anywhere", background: line.here ? colour : "transparent" },
                   `${line.here ? ">" : " "} ${String(line.line).padStart(4)} | `);
    if (!line.column) {
      row.append(line.text);
      return row;
    }
    const [start, end] = line.column;
    const mark = el("mark", { background: "transparent", color: "#a61b0f", fontWeight: "bold",
                              textDecoration: "underline wavy", textUnderlineOffset: "3px" },
                    line.text.slice(start, end));
    row.append(line.text.slice(0, start), mark, line.text.slice(end));
    return row;
  };

  const problems = (box, list, colour) => {
    for (const problem of list) {
      box.append(el("p", { ...mono, margin: "1rem 0 .3rem", fontWeight: "bold", whiteSpace: "pre-wrap" },
                    problem.text));
      if (!problem.context.length) continue;
      const pre = el("pre", { ...mono, margin: "0", padding: ".5rem 0", background: "#f6f6f6", borderRadius: "4px" });
      for (const line of problem.context) pre.append(sourceLine(line, colour));
      box.append(pre);
    }
  };

  const closeButton = (label) => {
    const close = el("button", { float: "right", font: "inherit", cursor: "pointer", border: "1px solid #999",
                                 borderRadius: "4px", background: "#f4f4f4", padding: ".1rem .6rem" }, label);
    close.type = "button";
    close.addEventListener("click", hide);
    return close;
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
    box.append(closeButton(labels.hide), title, note);
    problems(box, failure.problems, "#fde2df");
    if (failure.traceback) {
      const trace = el("pre", { ...mono, whiteSpace: "pre-wrap", background: "#f6f6f6", padding: ".6rem .8rem",
                                borderRadius: "4px" }, failure.traceback);
      if (count) {  // a code error's trace: folded below its file:line
        const folded = el("details", { margin: ".5rem 0 0" });
        folded.append(el("summary", { cursor: "pointer", color: "#555" }, labels.trace), trace);
        box.append(folded);
      } else {
        box.append(trace);
      }
    }
    root.append(box);
    document.documentElement.append(host);
  };

  // Warnings do not stop the build: a panel at the bottom that leaves the page usable.
  const warn = (warned) => {
    if (!warned.problems.length) return;
    hide();
    host = el("div", { position: "fixed", left: "0", right: "0", bottom: "0", zIndex: "2147483647",
                       maxHeight: "40vh", overflow: "auto", padding: "0 1rem" });
    host.id = "devserver-warnings";
    const root = host.attachShadow({ mode: "open" });
    const box = el("section", { maxWidth: "60rem", margin: "0 auto", background: "#fffdf5", color: "#1a1a1a",
                                borderTop: "6px solid #b7791f", borderRadius: "6px 6px 0 0",
                                padding: ".8rem 1.5rem", font: "15px/1.5 system-ui, sans-serif",
                                boxShadow: "0 -2px 12px rgba(0, 0, 0, 0.25)" });
    box.setAttribute("role", "status");
    box.append(closeButton(warned.labels.hide),
               el("h2", { margin: "0", fontSize: "1.05rem", color: "#8a5a00" }, warned.labels.count));
    problems(box, warned.problems, "#fbefd0");
    root.append(box);
    document.documentElement.append(host);
  };

  const events = new EventSource("/__dev/events");
  events.addEventListener("hello", (event) => {
    const state = JSON.parse(event.data);
    // A build finished between serving this page and connecting: this page may be stale.
    if (!state.failing && state.build !== pageBuild) reload();
    else if (!state.failing) warn(state.warnings);
  });
  events.addEventListener("reload", (event) => {
    const { urls } = JSON.parse(event.data);
    hide();
    if (urls.includes(here())) reload();
  });
  events.addEventListener("build-error", (event) => show(JSON.parse(event.data)));
})();
