// The page of a service-worker app: registers the worker, waits until it
// controls the page, and fetches an answer the worker computes with the SDK.
export async function answer(script, options) {
  try {
    const registration = await navigator.serviceWorker.register(script, options);
    if (!navigator.serviceWorker.controller) {
      await new Promise((resolve) => navigator.serviceWorker.addEventListener("controllerchange", resolve, { once: true }));
    }
    const response = await fetch("./sdk-check");
    window.__result = { ...(await response.json()), scope: registration.scope };
  } catch (error) {
    window.__result = { error: String(error?.stack ?? error) };
  }
}
