/* setlab's steppers (src/setlab/render/steppers.py): every <figure class="setlab-stepper"> holds
   its frames as JSON, computed by the book's models when the page was executed. This shows one
   frame at a time: Back and Next walk the first data-walk frames, and each "try" button shows its
   own frame (a query the reader picks). It computes nothing: each frame's cells, marks, bars and
   sentence are written as the model left them. The figure's data-frame is the frame shown. */
(function () {
  "use strict";

  function setUp(figure) {
    var frames = JSON.parse(figure.querySelector(".setlab-stepper-frames").textContent);
    var marks = JSON.parse(figure.dataset.marks || "{}");
    var walk = Number(figure.dataset.walk);
    var cells = figure.querySelectorAll(".setlab-cell");
    var bars = figure.querySelectorAll(".setlab-stepper-bar");
    var text = figure.querySelector(".setlab-stepper-text");
    var count = figure.querySelector(".setlab-stepper-count");
    var back = figure.querySelector('[data-go="back"]');
    var next = figure.querySelector('[data-go="next"]');
    var tries = figure.querySelectorAll("[data-frame]");
    var current = 0;

    function show(index) {
      var frame = frames[index];
      current = index;
      text.textContent = frame.text;
      cells.forEach(function (cell, i) {
        var mark = frame.marks[String(i)];
        cell.textContent = frame.cells[i];
        cell.className = "setlab-cell" + (mark ? " setlab-mark-" + mark : "");
        cell.dataset.mark = mark || "";
        cell.title = cell.dataset.where + (mark ? ": " + marks[mark] : "");
      });
      var largest = Math.max.apply(null, frame.bars.map(function (b) { return b.value || 0; }));
      bars.forEach(function (bar, i) {
        var b = frame.bars[i];
        bar.classList.toggle("setlab-chosen", b.chosen);
        bar.classList.toggle("setlab-refused", b.value === null);
        bar.querySelector(".setlab-stepper-bar-fill").style.width =
          (b.value === null ? 0
          : Math.round(Math.max(0.5, 100 * b.value / largest) * 100) / 100) + "%";
        bar.querySelector(".setlab-stepper-bar-size").textContent = b.text;
      });
      var tried = null;
      tries.forEach(function (button) {
        var on = Number(button.dataset.frame) === index;
        button.setAttribute("aria-pressed", on ? "true" : "false");
        if (on) tried = button.textContent;
      });
      count.textContent = tried === null ? "step " + (index + 1) + " of " + walk
        : "query " + tried;
      back.disabled = index === 0;
      next.disabled = index === walk - 1;
      figure.dataset.frame = String(index);
    }

    back.addEventListener("click", function () {
      show(current >= walk ? walk - 1 : current - 1);
    });
    next.addEventListener("click", function () { show(Math.min(current + 1, walk - 1)); });
    tries.forEach(function (button) {
      button.addEventListener("click", function () { show(Number(button.dataset.frame)); });
    });
    figure.querySelectorAll("[hidden].setlab-stepper-controls, [hidden].setlab-stepper-tries")
      .forEach(function (el) { el.hidden = false; });
    show(0);
    figure.dataset.ready = "1";
  }

  function start() { document.querySelectorAll("figure.setlab-stepper").forEach(setUp); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
