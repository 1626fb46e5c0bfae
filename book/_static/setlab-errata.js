/* The errata page's filters (no dependencies, nothing loaded from elsewhere, no kernel).
   Each row of the errata table carries an empty <span class="errata-row"> with data-seed,
   data-chapter and data-verdict (written by setlab.site.registry.errata_markdown); the form
   #errata-filters (setlab.site.errata.filters_html) has one <select> per attribute. A row
   shows when it matches every chosen value; #errata-shown says how many rows show. The form is
   hidden until this script runs, so without JavaScript the whole table simply shows. The
   choice lives in the URL (errata.html?chapter=setbit-offset&verdict=wrong): a chapter's
   verdict table links its restatements and unjudged sentences that way, and a reader can
   copy a filtered view. */
(function () {
  "use strict";

  function setUp() {
    const form = document.getElementById("errata-filters");
    if (!form) return;
    const rows = Array.from(document.querySelectorAll("span.errata-row")).map(function (tag) {
      return { tr: tag.closest("tr"), data: tag.dataset };
    });
    const selects = Array.from(form.querySelectorAll("select[data-filter]"));
    const shown = document.getElementById("errata-shown");

    function apply() {
      let count = 0;
      rows.forEach(function (row) {
        const match = selects.every(function (s) {
          return s.value === "" || row.data[s.dataset.filter] === s.value;
        });
        row.tr.style.display = match ? "" : "none";
        row.tr.setAttribute("data-errata-shown", match ? "yes" : "no");
        if (match) count += 1;
      });
      shown.textContent = count + " of " + rows.length + " entries shown";
    }

    function remember() {
      const query = new URLSearchParams();
      selects.forEach(function (s) { if (s.value) query.set(s.dataset.filter, s.value); });
      const text = query.toString();
      history.replaceState(null, "", location.pathname + (text ? "?" + text : "") + location.hash);
    }

    const asked = new URLSearchParams(location.search);
    selects.forEach(function (s) {
      const value = asked.get(s.dataset.filter);
      if (value && Array.from(s.options).some(function (o) { return o.value === value; })) {
        s.value = value;
      }
      s.addEventListener("change", function () { apply(); remember(); });
    });
    form.addEventListener("reset", function () { setTimeout(function () { apply(); remember(); }, 0); });
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    form.hidden = false;
    apply();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
