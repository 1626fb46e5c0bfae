/* Added by tests/support/site.py to a page open in the tests' browser: window.setlabMeasure()
   measures what a reader sees at the current viewport and colour scheme and returns it. */
(function () {
  "use strict";
  function parseColour(text) {
    const m = text.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const parts = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return { r: parts[0], g: parts[1], b: parts[2], a: parts.length > 3 ? parts[3] : 1 };
  }

  function over(top, bottom) {
    const a = top.a;
    return {
      r: top.r * a + bottom.r * (1 - a),
      g: top.g * a + bottom.g * (1 - a),
      b: top.b * a + bottom.b * (1 - a),
      a: 1,
    };
  }

  // The colour actually behind an element: its ancestors' backgrounds (and the inset box-shadow
  // Bootstrap tables use for zebra rows), composited from the page down.
  function backgroundOf(el) {
    const chain = [];
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) chain.push(node);
    let colour = { r: 255, g: 255, b: 255, a: 1 };
    for (const node of chain.reverse()) {
      const style = getComputedStyle(node);
      const bg = parseColour(style.backgroundColor);
      if (bg && bg.a > 0) colour = over(bg, colour);
      const shadow = style.boxShadow;
      if (shadow && shadow.includes("inset") && /9999px/.test(shadow)) {
        const sc = parseColour(shadow);
        if (sc && sc.a > 0) colour = over(sc, colour);
      }
    }
    return colour;
  }

  function scrollAncestor(el, stop) {
    for (let node = el.parentElement; node && node !== stop; node = node.parentElement) {
      const ox = getComputedStyle(node).overflowX;
      if (ox === "auto" || ox === "scroll" || ox === "hidden") return node;
    }
    return null;
  }

  function describe(el) {
    const text = (el.innerText || el.textContent || "").trim().replace(/\s+/g, " ");
    return el.tagName.toLowerCase() + (el.className ? "." + String(el.className).split(" ")[0] : "")
      + ": " + text.slice(0, 80);
  }

  function visible(el) {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden";
  }

  window.setlabMeasure = function () {
    const article = document.querySelector("article.bd-article") || document.body;
    const box = article.getBoundingClientRect();
    const style = getComputedStyle(article);
    const right = box.right - parseFloat(style.paddingRight) + 1;
    const result = {
      theme: document.documentElement.dataset.theme || "light",
      viewport: window.innerWidth,
      column: box.width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight),
      clipped: [],
      scrolling: [],
      images: [],
      verdicts: [],
      brokenWords: [],
    };
    // 1. Nothing sticks out of the column unless a scroll container holds it.
    article.querySelectorAll("table, pre, img, div.highlight, p, li, dl").forEach(function (el) {
      if (!visible(el)) return;
      const r = el.getBoundingClientRect();
      if (r.right <= right) return;
      const holder = scrollAncestor(el, article);
      if (holder && holder.getBoundingClientRect().right <= right) return;
      result.clipped.push({ what: describe(el), overBy: Math.round(r.right - right) });
    });
    // 2. Everything that scrolls sideways: tables, code, output. Hinted or not?
    article.querySelectorAll("*").forEach(function (el) {
      const ox = getComputedStyle(el).overflowX;
      if (ox !== "auto" && ox !== "scroll") return;
      if (!visible(el) || el.scrollWidth <= el.clientWidth + 1) return;
      const hint = el.previousElementSibling;
      const hinted = el.classList.contains("setlab-overflows") && !!hint
        && hint.classList.contains("setlab-scroll-hint") && !hint.hidden && visible(hint);
      const code = el.matches("pre, div.highlight, .output") || !!el.querySelector("pre");
      result.scrolling.push({
        what: describe(el), kind: code && !el.querySelector("table") ? "code" : "table",
        hinted: hinted, overBy: el.scrollWidth - el.clientWidth,
      });
    });
    // 3. Figures: their alt, and how large they are on screen.
    article.querySelectorAll("img").forEach(function (img) {
      const r = img.getBoundingClientRect();
      result.images.push({
        src: img.getAttribute("src"), alt: img.getAttribute("alt"),
        shownWidth: r.width, naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight,
        widthAttr: img.getAttribute("width"), inOutput: !!img.closest("div.cell_output"),
      });
    });
    // 4. Verdict colours against what is behind them.
    article.querySelectorAll(".verdict-right, .verdict-wrong, .verdict-other").forEach(function (el) {
      const fg = parseColour(getComputedStyle(el).color);
      const bg = backgroundOf(el);
      result.verdicts.push({ cls: el.className, text: el.textContent, fg: over(fg, bg), bg: bg });
    });
    // 5. Words broken across two lines inside a table cell ("mem|ory", "10,00|0"): a column
    // narrowed below its longest word. Code and runs of 16 characters or more (a 19-digit ID)
    // may break.
    article.querySelectorAll("td, th").forEach(function (cell) {
      if (!visible(cell)) return;
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        // CJK text breaks between any two characters; "…" and "√" are break opportunities
        if (node.parentElement.closest("code, pre") || /[\u3000-\u9fff\uff00-\uffef]/.test(node.data)) continue;
        const pattern = /[^\s\-\u2010-\u2014\u2026\u221a\/]{2,}/g;
        let match;
        while ((match = pattern.exec(node.data)) !== null) {
          if (match[0].length >= 16) continue;
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const tops = new Set([...range.getClientRects()].filter(function (r) {
            return r.width > 0;
          }).map(function (r) { return Math.round(r.top); }));
          if (tops.size > 1) result.brokenWords.push({ word: match[0], what: describe(cell) });
        }
      }
    });
    return result;
  };
})();
