// MathJax 4 configuration for the site (docs/conf.py: mathjax_config_path); Sphinx inlines it
// before startup.js.  Only the loader, TeX input, CommonHTML output and hidden MathML for screen
// readers are loaded, from docs/_static/vendor: the combined tex-chtml.js would also start a
// speech worker that fetches rule files.  MyST's own settings (which elements to typeset) come
// first, as window.MathJax.options; this adds the loader and startup settings to them.
window.MathJax = Object.assign(window.MathJax || {}, {
  loader: {
    load: ["input/tex", "output/chtml", "a11y/assistive-mml"],
    // Fonts load from the local copy beside mathjax/, not from MathJax's default CDN path.
    paths: { fonts: "[mathjax]/.." },
  },
  startup: {
    // a11y/assistive-mml (4.1.3) records options.menuOptions.settings.assistiveMml for the
    // context menu, which this site does not load; the document would then reject
    // "menuOptions" as an invalid option and say so in the console on every page with math.
    // Hidden MathML itself is the document option enableAssistiveMml, which stays on.
    ready() {
      delete MathJax.config.options.menuOptions;
      MathJax.startup.defaultReady();
    },
  },
});
