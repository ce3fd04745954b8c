// agenteval view: filter and search a run's scenarios, and compare the
// two entries ticked on the index. No dependency, no build step.
(function () {
  "use strict";
  document.querySelectorAll(".controls[data-table]").forEach(function (bar) {
    var table = document.getElementById(bar.dataset.table);
    if (!table) return;
    var rows = table.querySelectorAll(".row");
    var texts = null; // each row's text in lower case, read on the first search
    var filter = "all";
    var search = bar.querySelector("input.search");
    function apply() {
      var q = search ? search.value.trim().toLowerCase() : "";
      if (q !== "" && texts === null) {
        texts = [];
        for (var j = 0; j < rows.length; j++) texts.push(rows[j].textContent.toLowerCase());
      }
      for (var i = 0; i < rows.length; i++) {
        var r = rows[i];
        var show = (filter === "all" || r.classList.contains(filter)) &&
          (q === "" || texts[i].indexOf(q) >= 0);
        r.classList.toggle("hidden", !show);
      }
    }
    bar.querySelectorAll("button[data-filter]").forEach(function (b) {
      b.addEventListener("click", function () {
        filter = b.dataset.filter;
        bar.querySelectorAll("button[data-filter]").forEach(function (o) { o.classList.toggle("on", o === b); });
        apply();
      });
    });
    if (search) search.addEventListener("input", apply);
  });
  var form = document.querySelector("form.compare");
  if (form) {
    var picked = [];
    document.querySelectorAll("input.pick").forEach(function (box) {
      box.addEventListener("change", function () {
        picked = picked.filter(function (v) { return v !== box.value; });
        if (box.checked) picked.push(box.value);
        while (picked.length > 2) {
          var old = picked.shift();
          var o = document.querySelector('input.pick[value="' + old + '"]');
          if (o) o.checked = false;
        }
        form.elements.a.value = picked[0] || "";
        form.elements.b.value = picked[1] || "";
      });
    });
  }
})();
