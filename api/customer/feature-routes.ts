import type { Config } from '../../config/index.js';
import type { AppContext, FeatureRoutes } from '../app.js';
import type { Surface } from '../http/route.js';

/**
 * Registers a feature whose docs quote the configuration: the docs are worded once, and each route
 * function, in the order given (the order of the OpenAPI document), gets the surface, the app and them.
 */
export function registerFeature<Docs>(
  surface: Surface,
  context: AppContext,
  docsFor: (config: Config) => Docs,
  routeFunctions: ((routes: FeatureRoutes<Docs>) => void)[],
): void {
  const routes: FeatureRoutes<Docs> = { surface, context, docs: docsFor(context.config) };
  for (const register of routeFunctions) register(routes);
}
