// The gallery's filter: show the figures and values whose text contains every word typed
// (and, if chosen, whose provenance matches); a folded group of values opens while a filter finds
// something in it and hides when it finds nothing. Without JavaScript everything stays visible.
(() => {
  const input = document.querySelector("[data-gallery-filter]");
  const kind = document.querySelector("[data-gallery-provenance]");
  const count = document.querySelector("[data-gallery-count]");
  if (!input || !kind) return;
  const items = [...document.querySelectorAll("[data-gallery-item]")];
  const groups = [...document.querySelectorAll("[data-gallery-group]")];
  const texts = new Map(items.map((item) => [item, item.textContent.toLowerCase()]));
  const apply = () => {
    const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const item of items) {
      const match = words.every((w) => texts.get(item).includes(w) || item.id.toLowerCase().includes(w))
        && (!kind.value || item.dataset.provenance === kind.value);
      item.hidden = !match;
      shown += match;
    }
    const filtering = words.length > 0 || Boolean(kind.value);
    for (const group of groups) {
      const any = group.querySelector("[data-gallery-item]:not([hidden])") !== null;
      group.hidden = !any;
      group.open = filtering && any;
    }
    count.textContent = `${shown} / ${items.length}`;
  };
  input.closest("[data-js-only]").hidden = false;
  input.addEventListener("input", apply);
  kind.addEventListener("change", apply);
  apply();
})();
