// The replay without reloading: each step's table is fetched (and kept), the
// address says the step (?v=N, a link to share), the arrow keys, Home and End
// step, a history line jumps, autoplay steps until the end. Spoiler-free: the
// history past the step stays hidden, so the result shows only at the end.
(function () {
  "use strict";
  var form = document.querySelector(".replay-controls");
  if (!form || !window.fetch) {
    return; // the links (?v=N) do it all, one page each
  }
  var first = parseInt(form.getAttribute("data-first"), 10);
  var last = parseInt(form.getAttribute("data-last"), 10);
  var spoilers = form.querySelector("input[name=spoilers]");
  var play = form.querySelector(".autoplay");
  var link = form.querySelector(".step-link");
  var kept = {};
  var timer = null;
  var loading = 0;
  var shown = document.getElementById("replay-step");
  var wanted = shown ? parseInt(shown.getAttribute("data-v"), 10) : first;

  // the step asked for last: keys pressed faster than the steps arrive add up
  function current() {
    return wanted;
  }

  function query(v) {
    return "?v=" + v + (spoilers && spoilers.checked ? "&spoilers=off" : "");
  }

  function mark(v) {
    var hide = spoilers && spoilers.checked;
    document.querySelectorAll(".replay-lines li").forEach(function (li) {
      var at = parseInt(li.getAttribute("data-v"), 10);
      if (at === v) {
        li.setAttribute("aria-current", "step");
      } else {
        li.removeAttribute("aria-current");
      }
      li.hidden = hide && at > v;
    });
    if (link) {
      link.setAttribute("href", query(v));
    }
  }

  function show(v, html) {
    var old = document.getElementById("replay-step");
    var holder = document.createElement("div");
    holder.innerHTML = html.trim();
    var fresh = holder.firstElementChild;
    if (!old || !fresh || fresh.id !== "replay-step") {
      return;
    }
    old.replaceWith(fresh);
    history.replaceState(null, "", query(v));
    mark(v);
  }

  function go(v) {
    v = Math.max(first, Math.min(last, v));
    wanted = v;
    if (kept[v]) {
      show(v, kept[v]);
      return Promise.resolve(v);
    }
    loading += 1;
    return fetch(query(v), { headers: { "HX-Request": "true" } })
      .then(function (r) {
        return r.ok ? r.text() : Promise.reject(r.status);
      })
      .then(function (html) {
        kept[v] = html;
        if (v === wanted) {
          show(v, html); // an older answer arriving late is only kept
        }
        return v;
      })
      .finally(function () {
        loading -= 1;
      });
  }

  function stop() {
    if (timer !== null) {
      clearInterval(timer);
      timer = null;
    }
    play.textContent = play.getAttribute("data-play");
    play.setAttribute("aria-pressed", "false");
  }

  function start() {
    if (current() >= last) {
      go(first);
    }
    play.textContent = play.getAttribute("data-pause");
    play.setAttribute("aria-pressed", "true");
    timer = setInterval(function () {
      if (loading) {
        return; // the step before is still on its way
      }
      if (current() >= last) {
        stop();
        return;
      }
      go(current() + 1);
    }, 1200);
  }

  form.addEventListener("click", function (e) {
    var step = e.target.closest("[data-step]");
    if (step) {
      stop();
      go(current() + parseInt(step.getAttribute("data-step"), 10));
    } else if (e.target === play) {
      if (timer === null) {
        start();
      } else {
        stop();
      }
    }
  });
  form.addEventListener("submit", function (e) {
    e.preventDefault();
  });
  if (spoilers) {
    spoilers.addEventListener("change", function () {
      kept = {};
      mark(current());
      history.replaceState(null, "", query(current()));
    });
  }
  document.querySelector(".replay-lines").addEventListener("click", function (e) {
    var li = e.target.closest("li[data-v]");
    if (li && !e.ctrlKey && !e.metaKey) {
      e.preventDefault();
      stop();
      go(parseInt(li.getAttribute("data-v"), 10));
    }
  });
  document.addEventListener("keydown", function (e) {
    var tag = (e.target.tagName || "").toLowerCase();
    if (tag === "input" && e.target.type !== "checkbox") {
      return;
    }
    if (tag === "textarea" || tag === "select" || e.altKey || e.ctrlKey || e.metaKey) {
      return;
    }
    var to = { ArrowLeft: current() - 1, ArrowRight: current() + 1, Home: first, End: last }[e.key];
    if (to !== undefined) {
      e.preventDefault();
      stop();
      go(to);
    }
  });
})();
