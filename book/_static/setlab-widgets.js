/* setlab's interactive figures (src/setlab/render/widgets.py): every <figure class="setlab-widget">
   holds a Vega-Lite spec as JSON, sliders with number boxes, and <output data-readout> elements.
   This embeds the chart with the Vega bundle the book serves itself (_static/vega, no CDN; fetched
   when the reader nears a widget, see start), feeds
   the controls into the chart's parameters, and writes each readout's value (data-value, the
   number; text, as the Python fallback writes it). A widget that is ready has data-ready="1".
   Its settings live in the page's URL, one parameter per control (?setbit.offset=700000000)
   and per choice (a <select>, render/widget_controls.py Choice: ?setbit.redis=8.2): a reader
   copies the address, and whoever opens it sees the same readouts. */
(function () {
  "use strict";

  function sig(v) {
    if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString("en-US");
    var rounded = Number(v.toPrecision(3));
    // Python's .3g writes an exponent below 10^-4 (JavaScript only below 10^-6): 1.8e-05
    if (rounded !== 0 && Math.abs(rounded) < 1e-4) {
      return expo(v.toExponential(2).replace(/\.?0+e/, "e"));
    }
    return expo(rounded.toString());
  }
  function expo(text) { return text.replace(/e([+-])(\d)$/, "e$10$2"); }
  function bytes(n) {
    var units = ["B", "KiB", "MiB", "GiB", "TiB"], v = n, i = 0;
    while (v >= 1024 && i < units.length - 1) { v /= 1024; i += 1; }
    if (i === 0) return Math.round(v) + " B";
    return (v >= 100 ? v.toFixed(0) : Number(v.toPrecision(3)).toString()) + " " + units[i];
  }
  // A readout as setlab.core.formats.format_readout writes it (the tests compare the two).
  function format(value, kind, unit) {
    var text;
    if (kind === "text") return value ? String(value) : "\u2014";
    if (!isFinite(value)) text = "\u2014";
    // BigInt writes every digit of a whole number past 2^53 (2^64 offsets), as Python does
    else if (kind === "int") text = BigInt(Math.round(value)).toLocaleString("en-US");
    else if (kind === "bytes") text = bytes(value);
    else if (kind === "percent") text = sig(value * 100) + "%";
    else if (kind === "rate") {
      text = (value === 0 || value >= 1e-3) ? Number(value.toPrecision(3)).toString()
        : expo(value.toExponential(2));
    } else text = sig(value);
    return unit && isFinite(value) ? text + " " + unit : text;
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

  var LONG_TEXT = 60;  // words longer than this read as a sentence (render/widgets.py)

  function readouts(figure, view) {
    // the widget's own refusal (a setting setlab calc refuses as a whole: two of n, p, m, k
    // left out), unless a typed value's refusal stands
    if (figure.hasAttribute("data-refusal") && figure.dataset.refusedBy === undefined) {
      refuse(figure, String(view.signal("refusal") || "") || null);
    }
    var refused = figure.dataset.refused === "1";  // a refused input shows no number
    figure.querySelectorAll("output[data-readout]").forEach(function (out) {
      var value = refused ? NaN : view.signal(out.dataset.readout);
      var text = out.dataset.kind === "text";
      if (text && refused) value = "";
      out.dataset.value = String(value);
      out.textContent = format(text ? value : Number(value), out.dataset.kind, out.dataset.unit);
      if (text) out.toggleAttribute("data-long", String(value).length > LONG_TEXT);
    });
    solved(figure, view, refused);
    commands(figure, view);
    // counts the updates, so a test can wait for the one its input caused
    figure.dataset.updates = String(Number(figure.dataset.updates || 0) + 1);
  }

  /* An optional control (render/widgets.py Control.optional) the reader left out: its box
     and slider show the readout that solves it. */
  function given(control) {
    var box = control && control.querySelector(".setlab-given");
    return !box || box.checked;
  }
  function solved(figure, view, refused) {
    figure.querySelectorAll(".setlab-control[data-solved]").forEach(function (control) {
      if (given(control)) return;
      var value = Number(view.signal(control.dataset.solved)), d = control.dataset;
      var box = control.querySelector("input[type=number]");
      var range = control.querySelector("input[type=range]");
      if (refused || !isFinite(value)) { box.value = ""; return; }
      box.value = d.integer === "1" ? BigInt(Math.round(value)).toString() : String(value);
      var shown = Math.min(Number(d.high), Math.max(Number(d.low), value));
      range.value = String(d.log === "1" ? Math.log10(shown) : shown);
    });
  }

  /* The lines to copy (render/widgets.py Command): each {name} is a control's box as it reads
     (even a value the CLI refuses: the copied line then gets the same refusal), a choice's
     word, or a whole-number readout, every digit. */
  function commands(figure, view) {
    function control(name) {
      return figure.querySelector('.setlab-control[data-control="' + name + '"]');
    }
    figure.querySelectorAll("code[data-template]").forEach(function (code) {
      // a part in [...] only while every control it names is given ([-m {m}]: m is typed)
      var kept = code.dataset.template.replace(/\[([^\]]*)\] ?/g, function (_, part) {
        var names = (part.match(/\{[a-z][a-z0-9_]*\}/g) || []).map(function (p) {
          return p.slice(1, -1);
        });
        return names.every(function (n) { return given(control(n)); }) ? part + " " : "";
      }).trim();
      code.textContent = kept.replace(/\{([a-z][a-z0-9_]*)\}/g,
        function (_, name) {
          var control = figure.querySelector('.setlab-control[data-control="' + name + '"]');
          if (control) return control.querySelector("input[type=number]").value.trim();
          var choice = chosen(figure, name);
          if (choice) return choice.value;
          var value = Number(view.signal(name));
          return isFinite(value) ? BigInt(Math.round(value)).toString() : "?";
        });
    });
  }

  function wireCopy(figure) {
    figure.querySelectorAll(".setlab-widget-command").forEach(function (line) {
      var button = line.querySelector(".setlab-copy"), code = line.querySelector("code");
      button.addEventListener("click", function () {
        var done = function () {
          button.textContent = "Copied";
          setTimeout(function () { button.textContent = "Copy"; }, 1500);
        };
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(code.textContent).then(done, function () {});
        } else {  // select it, for the reader's own Ctrl-C
          var range = document.createRange();
          range.selectNodeContents(code);
          window.getSelection().removeAllRanges();
          window.getSelection().addRange(range);
        }
      });
    });
  }

  /* The CLI's message for a typed value it refuses (data-refuse-below / -above / -negative /
     -grid, written by render/widgets.py from the model's own check, past what the CLI takes:
     data-cli-low / -high, or the control's own span), the page's (data-refuse-beyond) for a
     value the CLI takes but the page does not compute, as {side, message}; or null when the
     value is fine. The value is written as Python writes it: every digit of a whole number
     (BigInt), with separators for {value:,}, and a whole number typed for a real-valued
     control as a float ("1.0"). */
  function outside(text, value, bound, below) {
    var whole = /^-?\d+$/, t = text.trim();
    if (whole.test(t) && whole.test(bound)) {  // every digit: 2^64 + 1 is past 2^64
      return below ? BigInt(t) < BigInt(bound) : BigInt(t) > BigInt(bound);
    }
    return below ? value < Number(bound) : value > Number(bound);
  }
  function refusal(control, text) {
    var value = Number(text), side = null, d = control.dataset;
    var cliLow = d.cliLow !== undefined ? d.cliLow : d.low;
    var cliHigh = d.cliHigh !== undefined ? d.cliHigh : d.high;
    if (value < 0 && d.refuseNegative) side = "refuseNegative";
    else if (outside(text, value, cliLow, true)) {
      side = d.refuseBelow ? "refuseBelow" : "refuseBeyond";
    } else if (outside(text, value, cliHigh, false)) {
      side = d.refuseAbove ? "refuseAbove" : "refuseBeyond";
    } else if (value < Number(d.low) || value > Number(d.high)) side = "refuseBeyond";
    else if (d.grid && d.grid.split(",").map(Number).indexOf(value) < 0) side = "refuseGrid";
    if (side === null || !d[side]) return null;
    var whole = /^-?\d+$/.test(text.trim()), big = whole ? BigInt(text.trim()) : null;
    var plain = !whole ? String(value) : d.integer === "1" ? big.toString() : big + ".0";
    var grouped = whole ? big.toLocaleString("en-US") : value.toLocaleString("en-US");
    // 2^value for a control in log2 units (a range typed as its exponent); not past 2^4096
    var pow2 = !whole ? "" : big > BigInt(4096) || big < BigInt(0) ? "2^" + big
      : (BigInt(2) ** big).toLocaleString("en-US");
    var message = d[side].split("{value:,}").join(grouped).split("{value}").join(plain)
      .split("{pow2:,}").join(pow2);
    return { side: side, message: message };
  }

  /* Shows (or, with null, clears) a refusal: the message under the controls, and readouts
     that show no number while it stands. */
  function refuse(figure, message) {
    var note = figure.querySelector(".setlab-widget-refusal");
    if (!note) return;
    note.hidden = message === null;
    note.textContent = message || "";
    if (message === null) delete figure.dataset.refused;
    else figure.dataset.refused = "1";
  }

  /* The URL parameter of a control or a choice: the widget's slug and its name. */
  function param(figure, name) { return figure.dataset.widget + "." + name; }

  /* A choice's <select> (render/widget_controls.py Choice), or null when none has that name. */
  function chosen(figure, name) {
    return figure.querySelector('.setlab-choice[data-choice="' + name + '"] select');
  }

  /* Writes the widget's settings into the address (replacing, not adding, a history entry),
     keeping every other parameter, and points the fragment at the widget. */
  function remember(figure) {
    var query = new URLSearchParams(window.location.search);
    figure.querySelectorAll(".setlab-control").forEach(function (control) {
      var box = control.querySelector("input[type=number]");
      var key = param(figure, control.dataset.control);
      // a refused value is not shared (a choice made meanwhile is): the last one taken stays
      if (figure.dataset.refusedBy === control.dataset.control) return;
      if (given(control)) query.set(key, box.value);
      else query.delete(key);  // left out: solved, as setlab calc solves an option not given
    });
    figure.querySelectorAll(".setlab-choice").forEach(function (choice) {
      query.set(param(figure, choice.dataset.choice), choice.querySelector("select").value);
    });
    var url = window.location.pathname + "?" + query.toString() + "#" + figure.id;
    window.history.replaceState(window.history.state, "", url);
    var link = figure.querySelector(".setlab-widget-link a");
    if (link) link.setAttribute("href", url);
  }

  function wire(figure, currentView) {
    var appliers = {}, resets = {}, givers = {};
    figure.querySelectorAll(".setlab-control").forEach(function (control) {
      var name = control.dataset.control, log = control.dataset.log === "1";
      var integer = control.dataset.integer === "1";
      var low = Number(control.dataset.low), high = Number(control.dataset.high);
      var range = control.querySelector("input[type=range]");
      var box = control.querySelector("input[type=number]");
      var good = box.value;  // the last value the chart took
      resets[name] = function () {  // the box and the chart back to the last value it took
        box.value = good;
        currentView().signal(name, Number(good));
      };
      // text: the value as typed or as the URL has it (every digit, for the message)
      function apply(value, from, text) {
        if (!isFinite(value)) return Promise.resolve();
        if (from !== range) {  // typed, or from the URL: the CLI's check first
          var typed = text !== undefined ? text : box.value;
          var refused = refusal(control, typed);
          if (refused !== null) {
            if (from === null) box.value = text;
            refuse(figure, refused.message);
            figure.dataset.refusedBy = name;
            var shown = currentView();
            if (refused.side !== "refuseBeyond") {
              readouts(figure, shown);
              return Promise.resolve();
            }
            // the CLI takes it (only the page stops): the lines to copy are computed with it,
            // for the reader to run; the page still shows no number
            return shown.signal(name, Number(typed)).runAsync().then(function () {
              readouts(figure, shown);
            });
          }
        }
        var by = figure.dataset.refusedBy;
        if (by !== undefined && by !== name) resets[by]();  // its box back to what is shown
        delete figure.dataset.refusedBy;
        refuse(figure, null);
        value = Math.min(high, Math.max(low, value));
        if (integer) value = Math.round(value);
        box.value = String(value);  // typed values come back clamped and rounded
        good = box.value;
        if (from !== range) range.value = String(log ? Math.log10(value) : value);
        var view = currentView();
        if (from !== null) remember(figure);
        return view.signal(name, value).runAsync().then(function () { readouts(figure, view); });
      }
      appliers[name] = apply;
      var tick = control.querySelector(".setlab-given");
      if (tick) {
        // given or left out: the box and slider take input, or show the solution
        givers[name] = function (on) {
          tick.checked = on;
          range.disabled = box.disabled = !on;
          if (!on && figure.dataset.refusedBy === name) { delete figure.dataset.refusedBy; }
          currentView().signal(name + "_given", on ? 1 : 0);
        };
        tick.addEventListener("change", function () {
          givers[name](tick.checked);
          if (tick.checked) {  // it takes the value it showed, checked as if typed
            if (box.value.trim() === "") box.value = good;
            return apply(Number(box.value), box);
          }
          var by = figure.dataset.refusedBy;  // another box's refused value goes back too
          if (by !== undefined) { resets[by](); delete figure.dataset.refusedBy; }
          refuse(figure, null);
          remember(figure);
          var view = currentView();
          return view.runAsync().then(function () { readouts(figure, view); });
        });
      }
      var grid = control.dataset.grid ? control.dataset.grid.split(",").map(Number) : null;
      range.addEventListener("input", function () {
        var v = Number(range.value);
        v = log ? Math.pow(10, v) : v;
        if (grid) {  // a slider on a grid stops at the values the model has, and says which
          var at = log ? Math.log10 : function (x) { return x; };  // nearest on the slider
          v = grid.reduce(function (a, b) {
            return Math.abs(at(b) - at(v)) < Math.abs(at(a) - at(v)) ? b : a;
          });
          range.value = String(log ? Math.log10(v) : v);
        }
        apply(v, range);
      });
      box.addEventListener("change", function () { apply(Number(box.value), box); });
    });
    var choosers = {};
    figure.querySelectorAll(".setlab-choice").forEach(function (choice) {
      var name = choice.dataset.choice, select = choice.querySelector("select");
      // word: from the address (not rewritten), or undefined for the reader's pick; a word
      // the list does not hold leaves the choice as it is
      choosers[name] = function (word) {
        if (word !== undefined) {
          var known = Array.prototype.some.call(select.options, function (option) {
            return option.value === word;
          });
          if (!known) return Promise.resolve();
          select.value = word;
        } else remember(figure);
        var view = currentView();
        return view.signal(name, select.value).runAsync().then(function () {
          readouts(figure, view);
        });
      };
      select.addEventListener("change", function () { choosers[name](); });
    });
    return { appliers: appliers, givers: givers, choosers: choosers };
  }

  /* The settings the URL names for this widget, applied as if typed (without rewriting it).
     When it names any optional control, the ones it names are given and the others solved. */
  function restore(figure, wired, currentView) {
    var query = new URLSearchParams(window.location.search), pending = [];
    var optional = Object.keys(wired.givers);
    var named = optional.filter(function (name) { return query.has(param(figure, name)); });
    if (named.length) {
      optional.forEach(function (name) { wired.givers[name](named.indexOf(name) >= 0); });
    }
    Object.keys(wired.appliers).forEach(function (name) {
      var value = query.get(param(figure, name));
      if (value !== null && value.trim() !== "") {
        pending.push(wired.appliers[name](Number(value), null, value.trim()));
      }
    });
    Object.keys(wired.choosers).forEach(function (name) {
      var word = query.get(param(figure, name));
      if (word !== null) pending.push(wired.choosers[name](word.trim()));
    });
    return Promise.all(pending).then(function () { return currentView().runAsync(); });
  }

  function embed(figure, spec) {
    var chart = figure.querySelector(".setlab-widget-chart");
    figure.classList.add("setlab-widget-live");  // the chart needs its width before it is drawn
    var options = { actions: false, renderer: "svg", config: colours(figure) };
    return vegaEmbed(chart, spec, options).then(function (result) {
      figure.querySelectorAll(".setlab-control").forEach(function (control) {
        var box = control.querySelector("input[type=number]"), name = control.dataset.control;
        if (box.value.trim() !== "") result.view.signal(name, Number(box.value));
        if (control.dataset.solved) result.view.signal(name + "_given", given(control) ? 1 : 0);
      });
      figure.querySelectorAll(".setlab-choice").forEach(function (choice) {
        result.view.signal(choice.dataset.choice, choice.querySelector("select").value);
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
    wireCopy(figure);
    draw(function () {
      var currentView = function () { return current; };
      return restore(figure, wire(figure, currentView), currentView);
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

  /* The Vega bundle (870 KB) is fetched only when a reader comes near a widget (600 px
     ahead of it), or at once when the address carries a widget's settings or names one: a
     reader who never scrolls to a calculator never downloads it. */
  var BUNDLE = new URL("vega/setlab-vega.js", document.currentScript.src).href;
  var loading = null;

  function bundle() {
    if (loading === null) {
      loading = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = BUNDLE;
        script.onload = resolve;
        script.onerror = function () { reject(new Error("cannot load " + BUNDLE)); };
        document.head.appendChild(script);
      });
    }
    return loading;
  }

  function asked(figure) {
    var prefix = figure.dataset.widget + ".";
    var query = Array.from(new URLSearchParams(window.location.search).keys());
    return window.location.hash === "#" + figure.id
      || query.some(function (key) { return key.indexOf(prefix) === 0; });
  }

  function start() {
    var figures = Array.from(document.querySelectorAll("figure.setlab-widget"));
    function go(figure) {
      if (figure.dataset.started) return;
      figure.dataset.started = "1";
      bundle().then(function () { init(figure); }, function (error) {
        figure.dataset.error = String(error);
        console.error("setlab widget " + figure.id + ": " + error);
      });
    }
    if (!("IntersectionObserver" in window)) { figures.forEach(go); return; }
    var near = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (entry.isIntersecting) { near.unobserve(entry.target); go(entry.target); }
      });
    }, { rootMargin: "600px 0px" });
    figures.forEach(function (figure) {
      if (asked(figure)) go(figure);
      else near.observe(figure);
    });
  }
  // After "load": the theme's own scripts have settled light or dark by then, so the first
  // drawing has the right colours (a later switch redraws, see init).
  if (document.readyState === "complete") start();
  else window.addEventListener("load", start);
})();
