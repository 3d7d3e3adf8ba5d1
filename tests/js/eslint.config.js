// ESLint for seatmap's browser code: every script under static/ but the
// vendored ones, and these tests. Paths are the repository's: run it from
// the repository's root (`npm run lint` in tests/js does).
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    ignores: [
      "static/htmx.min.js",
      "static/htmx-ext-sse.min.js",
      "static/jsQR.js",
      "static/swagger-ui/**",
      "**/node_modules/**",
    ],
  },
  {
    files: ["static/**/*.js", "tests/js/**/*.js"],
    ...js.configs.recommended,
  },
  {
    files: ["static/**/*.js", "tests/js/**/*.js"],
    rules: {
      "no-unused-vars": ["error", { args: "after-used", argsIgnorePattern: "^_", caughtErrors: "all", caughtErrorsIgnorePattern: "^_" }],
      "no-var": "error",
      "prefer-const": "error",
      eqeqeq: ["error", "always"],
      "no-implicit-globals": "error",
      "no-shadow": ["error", { builtinGlobals: false }],
      "no-use-before-define": ["error", { functions: false, classes: true, variables: true }],
    },
  },
  {
    // The pages' ES modules.
    files: ["static/app.js", "static/designer.js", "static/walk-up.js", "static/app/**/*.js", "static/designer/**/*.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.browser } },
  },
  {
    // The door's classic scripts, and the API viewer's.
    files: ["static/door.js", "static/door-offline.js", "static/api-docs.js"],
    languageOptions: { sourceType: "script", globals: { ...globals.browser, jsQR: "readonly" } },
  },
  {
    // A service worker's global scope is its own: no page shares it.
    files: ["static/door-sw.js"],
    languageOptions: { sourceType: "script", globals: { ...globals.serviceworker } },
    rules: { "no-implicit-globals": "off" },
  },
  {
    files: ["tests/js/**/*.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.node } },
  },
];
