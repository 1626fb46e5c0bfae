/* setlab's interactive figures (src/setlab/render/widgets.py): every <figure class="setlab-widget">
   holds a Vega-Lite spec as JSON, sliders with number boxes, and <output data-readout> elements.
   This embeds the chart with the Vega bundle the book serves itself (_static/vega, no CDN), feeds
   the controls into the chart's parameters, and writes each readout's value (data-value, the
   number; text, as the Python fallback writes it). A widget that is ready has data-ready="1".
   Its settings live in the page's URL, one parameter per control (?setbit.offset=700000000):
   a reader copies the address, and whoever opens it sees the same readouts. */
(function () {
  "use strict";

  function sig(v) {
    if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString("en-US");
    return expo(Number(v.toPrecision(3)).toString());
  }
  function expo(text) { return text.replace(/e([+-])(\d)$/, "e$10$2"); }
  function bytes(n) {
    var units = ["B", "KiB", "MiB", "GiB", "TiB"], v = n, i = 0;
    while (v >= 1024 && i < units.length - 1) { v /= 1024; i += 1; }
    if (i === 0) return Math.round(v) + " B";
    return (v >= 100 ? v.toFixed(0) : Number(v.toPrecision(3)).toString()) + " " + units[i];
  }
  function format(value, kind, unit) {
    var text;
    if (!isFinite(value)) text = "\u2014";
    // BigInt writes every digit of a whole number past 2^53 (2^64 offsets), as Python does
    else if (kind === "int") text = BigInt(Math.round(value)).toLocaleString("en-US");
    else if (kind === "bytes") text = bytes(value);
    else if (kind === "percent") text = sig(value * 100) + "%";
    else if (kind === "rate") {
      text = (value === 0 || value >= 1e-3) ? Number(value.toPrecision(3)).toString()
        : expo(value.toExponential(2));
    } else text = sig(value);
    return unit ? text + " " + unit : text;
  }

  /* The chart takes its colours from the page (light or dark theme, whatever the theme sets). */
  function colours(figure) {
    var style = getComputedStyle(figure), text = style.color;
    var muted = getComputedStyle(figure.querySelector(".setlab-readout dt") || figure).color;
    var axis = { labelColor: text, titleColor: text, domainColor: muted, tickColor: muted,
      gridColor: muted, gridOpacity: 0.2, labelFontSize: 12, titleFontSize: 12 };
    return { background: null, axis: axis, view: { stroke: null },
      legend: { labelColor: text, titleColor: text, labelFontSize: 12, titleFontSize: 12 },
      title: { color: text, fontSize: 13 } };
  }

  function readouts(figure, view) {
    figure.querySelectorAll("output[data-readout]").forEach(function (out) {
      var value = view.signal(out.dataset.readout);
      out.dataset.value = String(value);
      out.textContent = format(Number(value), out.dataset.kind, out.dataset.unit);
    });
    // counts the updates, so a test can wait for the one its input caused
    figure.dataset.updates = String(Number(figure.dataset.updates || 0) + 1);
  }

  /* The URL parameter of a control: the widget's slug and the control's name. */
  function param(figure, name) { return figure.dataset.widget + "." + name; }

  /* Writes the widget's settings into the address (replacing, not adding, a history entry),
     keeping every other parameter, and points the fragment at the widget. */
  function remember(figure) {
    var query = new URLSearchParams(window.location.search);
    figure.querySelectorAll(".setlab-control").forEach(function (control) {
      var box = control.querySelector("input[type=number]");
      query.set(param(figure, control.dataset.control), box.value);
    });
    var url = window.location.pathname + "?" + query.toString() + "#" + figure.id;
    window.history.replaceState(window.history.state, "", url);
    var link = figure.querySelector(".setlab-widget-link a");
    if (link) link.setAttribute("href", url);
  }

  function wire(figure, currentView) {
    var appliers = {};
    figure.querySelectorAll(".setlab-control").forEach(function (control) {
      var name = control.dataset.control, log = control.dataset.log === "1";
      var integer = control.dataset.integer === "1";
      var low = Number(control.dataset.low), high = Number(control.dataset.high);
      var range = control.querySelector("input[type=range]");
      var box = control.querySelector("input[type=number]");
      function apply(value, from) {
        if (!isFinite(value)) return;
        value = Math.min(high, Math.max(low, value));
        if (integer) value = Math.round(value);
        box.value = String(value);  // typed values come back clamped and rounded
        if (from !== range) range.value = String(log ? Math.log10(value) : value);
        var view = currentView();
        if (from !== null) remember(figure);
        return view.signal(name, value).runAsync().then(function () { readouts(figure, view); });
      }
      appliers[name] = apply;
      range.addEventListener("input", function () {
        var v = Number(range.value);
        apply(log ? Math.pow(10, v) : v, range);
      });
      box.addEventListener("change", function () { apply(Number(box.value), box); });
    });
    return appliers;
  }

  /* The settings the URL names for this widget, applied as if typed (without rewriting it). */
  function restore(figure, appliers) {
    var query = new URLSearchParams(window.location.search), pending = [];
    Object.keys(appliers).forEach(function (name) {
      var given = query.get(param(figure, name));
      if (given !== null && given.trim() !== "") pending.push(appliers[name](Number(given), null));
    });
    return Promise.all(pending);
  }

  function embed(figure, spec) {
    var chart = figure.querySelector(".setlab-widget-chart");
    figure.classList.add("setlab-widget-live");  // the chart needs its width before it is drawn
    var options = { actions: false, renderer: "svg", config: colours(figure) };
    return vegaEmbed(chart, spec, options).then(function (result) {
      figure.querySelectorAll(".setlab-control").forEach(function (control) {
        var box = control.querySelector("input[type=number]");
        result.view.signal(control.dataset.control, Number(box.value));
      });
      return result.view.runAsync();
    });
  }

  function init(figure) {
    var source = figure.querySelector("script.setlab-widget-spec");
    if (!source || typeof vegaEmbed === "undefined") return;
    var spec = JSON.parse(source.textContent), current = null;
    // first: what to do once the chart exists and before the widget says it is ready (wire
    // the controls and apply the URL's settings, on the first drawing only)
    function draw(first) {
      if (current) current.finalize();
      figure.dataset.ready = "0";
      return embed(figure, spec).then(function (view) {
        current = view;
        return (first ? first() : Promise.resolve()).then(function () {
          readouts(figure, view);
          figure.dataset.ready = "1";
          return view;
        });
      });
    }
    draw(function () {
      return restore(figure, wire(figure, function () { return current; }));
    }).then(function () {
      // the theme switched between light and dark: redraw in its colours, same settings
      var drawn = JSON.stringify(colours(figure));
      new MutationObserver(function () {
        var now = JSON.stringify(colours(figure));
        if (now !== drawn) { drawn = now; draw(); }
      }).observe(document.documentElement,
        { attributes: true, attributeFilter: ["data-theme"] });
    }).catch(function (error) {
      figure.classList.remove("setlab-widget-live");
      figure.dataset.error = String(error);
      console.error("setlab widget " + figure.id + ": " + error);
    });
  }

  function start() { document.querySelectorAll("figure.setlab-widget").forEach(init); }
  // After "load": the theme's own scripts have settled light or dark by then, so the first
  // drawing has the right colours (a later switch redraws, see init).
  if (document.readyState === "complete") start();
  else window.addEventListener("load", start);
})();
