/* The Transformer, Executed: an inline formula wider than the text column (on a phone) becomes a block
   that scrolls sideways, instead of widening the whole page; narrower ones stay inline as text. */
(function () {
  function markWide() {
    document.querySelectorAll("span.math").forEach(function (span) {
      var math = span.querySelector("mjx-container");
      var column = span.closest("p, li, td, dd, div");
      if (!math || !column) return;
      span.classList.remove("math-wide");
      if (math.getBoundingClientRect().width > column.clientWidth) span.classList.add("math-wide");
    });
  }
  function whenTypeset() {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) MathJax.startup.promise.then(markWide);
    else markWide();
  }
  if (document.readyState === "complete") whenTypeset();
  else window.addEventListener("load", whenTypeset);
  var timer;
  window.addEventListener("resize", function () { clearTimeout(timer); timer = setTimeout(markWide, 200); });
})();
