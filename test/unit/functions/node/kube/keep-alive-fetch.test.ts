import { createKeepAliveFetch } from "../../../../../functions/node/kube/keep-alive-fetch.ts";
import { describeKubeTransport } from "./transport-suite.ts";

describeKubeTransport("createKeepAliveFetch", createKeepAliveFetch, { refusedHandshakeCode: /^(UND_ERR_SOCKET|ECONNRESET)$/ });
