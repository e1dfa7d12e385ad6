/** Node's options for the gateway and the renderer wherever they are started (service-node-args.mjs). */
export declare const SERVICE_NODE_ARGS: readonly string[]
