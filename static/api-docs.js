// /api/docs: Swagger UI (vendored from the npm package swagger-ui-dist
// 5.35.0 into static/swagger-ui/) over the app's own OpenAPI document.
window.addEventListener("DOMContentLoaded", function () {
  "use strict";
  window.SwaggerUIBundle({ url: "/api/openapi.json", dom_id: "#api-docs", deepLinking: true });
});
