/* setlab's reading aids (no dependencies, nothing loaded from elsewhere):
   - tables and code blocks that are wider than the column get the class "setlab-overflows" and a
     visible hint line above them ("scroll sideways"), recomputed when the window changes size;
   - tables of four or more columns are labelled cell by cell, so that on a phone setlab.css can
     show each row as a card;
   - in a table cell, a long token (an identifier, a call, a long number: 12 characters or more)
     may break at its punctuation (a <wbr> after . , : _ / = -, before a call's "("), and a piece of 16 characters
     with none (a 19-digit ID) anywhere, so no column is squeezed below an ordinary word
     ("mem|ory", "10,00|0") and no table is pushed out of the column;
   - a click on a figure opens it large in a dialog (Escape, a click or the button closes it). */
(function () {
  "use strict";

  const SCROLLERS = [
    ".bd-article .pst-scrollable-table-container",
    ".bd-article div.highlight pre",
    ".bd-article div.cell_output pre",
    ".bd-article div.cell_output .output",
    ".bd-article div.math mjx-container",
  ].join(", ");

  function hintFor(el) {
    const prev = el.previousElementSibling;
    if (prev && prev.classList.contains("setlab-scroll-hint")) return prev;
    const hint = document.createElement("div");
    hint.className = "setlab-scroll-hint";
    hint.textContent = el.matches("mjx-container")
      ? "wide formula: scroll sideways to read it"
      : el.matches("pre, .output")
        ? "wide lines: scroll sideways to read them"
        : "wide table: scroll sideways to see every column";
    el.parentNode.insertBefore(hint, el);
    return hint;
  }

  function markOverflows() {
    document.querySelectorAll(SCROLLERS).forEach(function (el) {
      const overflows = el.scrollWidth > el.clientWidth + 1;
      el.classList.toggle("setlab-overflows", overflows);
      if (overflows) {
        hintFor(el).hidden = false;
      } else {
        const prev = el.previousElementSibling;
        if (prev && prev.classList.contains("setlab-scroll-hint")) prev.hidden = true;
      }
    });
  }

  function labelCards() {
    document.querySelectorAll(".bd-article table").forEach(function (table) {
      const heads = Array.from(table.querySelectorAll("thead th")).map(function (th) {
        return th.textContent.trim();
      });
      if (heads.length < 4) return;
      table.classList.add("setlab-cards");
      table.querySelectorAll("tbody tr").forEach(function (tr) {
        Array.from(tr.children).forEach(function (td, i) {
          if (heads[i]) td.setAttribute("data-label", heads[i]);
        });
      });
    });
  }

  const LONG = /\S{12,}/;
  const AFTER = /([.,:_\/=-])(?=[^\s.,:(_\/=-])/g;
  const BEFORE = /([^\s(\u0000])\(/g;  // a call breaks before its "(", never after it

  function softBreaks() {
    document.querySelectorAll(".bd-article td, .bd-article th").forEach(function (cell) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      const long = [];
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (LONG.test(node.data) && !node.parentElement.closest("code, pre")) long.push(node);
      }
      long.forEach(function (node) {
        const fragment = document.createDocumentFragment();
        node.data.split(/(\s+)/).forEach(function (token) {
          if (token.length < 12) {
            fragment.append(token);
            return;
          }
          const pieces = token.replace(AFTER, "$1\u0000").replace(BEFORE, "$1\u0000(");
          pieces.split("\u0000").forEach(function (piece, i) {
            if (i > 0) fragment.append(document.createElement("wbr"));
            if (piece.length < 16) {
              fragment.append(piece);
              return;
            }
            // a run with no punctuation left (a 19-digit ID, a hex digest) may break anywhere
            const span = document.createElement("span");
            span.className = "setlab-long";
            span.textContent = piece;
            fragment.append(span);
          });
        });
        node.replaceWith(fragment);
      });
    });
  }

  function zoom(img) {
    const dialog = document.createElement("dialog");
    dialog.className = "setlab-zoom";
    dialog.setAttribute("aria-label", "Figure, enlarged");
    const close = document.createElement("button");
    close.className = "setlab-zoom-close";
    close.type = "button";
    close.textContent = "Close (Esc)";
    const big = document.createElement("img");
    big.src = img.currentSrc || img.src;
    big.alt = img.alt;
    dialog.append(close, big);
    document.body.append(dialog);
    const done = function () {
      dialog.close();
      dialog.remove();
    };
    close.addEventListener("click", done);
    big.addEventListener("click", done);
    dialog.addEventListener("close", function () { dialog.remove(); });
    dialog.showModal();
  }

  function wireZoom() {
    document.querySelectorAll(".bd-article div.cell_output img").forEach(function (img) {
      img.setAttribute("tabindex", "0");
      img.title = "Click to enlarge";
      img.addEventListener("click", function () { zoom(img); });
      img.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          zoom(img);
        }
      });
    });
  }

  function start() {
    softBreaks();
    labelCards();
    markOverflows();
    wireZoom();
    let pending = null;
    window.addEventListener("resize", function () {
      clearTimeout(pending);
      pending = setTimeout(markOverflows, 100);
    });
    // Fonts and MathJax change widths after load.
    window.addEventListener("load", markOverflows);
    if (document.fonts && document.fonts.ready) document.fonts.ready.then(markOverflows);
    setTimeout(markOverflows, 1500);
    // MathJax typesets after load: mark wide formulas once it is done.
    if (window.MathJax && window.MathJax.startup && window.MathJax.startup.promise) {
      window.MathJax.startup.promise.then(markOverflows);
    } else {
      setTimeout(markOverflows, 3000);
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
