// gemmkit-worker.mjs: the script of each Web Worker (or node worker thread)
// of a threaded gemmkit build; loadGemmkit({ threads }) in gemmkit.mjs
// starts them and sends each its start message.
import { serveAsWorker } from "./gemmkit.mjs";

await serveAsWorker();
