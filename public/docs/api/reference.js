// The API reference page: Swagger UI over this service's own OpenAPI
// document (same origin). "Try it out" sends requests from this page with the
// token entered under "Authorize"; nothing is stored.
window.SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  tryItOutEnabled: false,
  validatorUrl: null,
});
