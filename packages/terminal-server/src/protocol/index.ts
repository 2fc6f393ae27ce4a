/** The browser protocol (runtime-free): frames, validators, close codes. Filled by the transport work. */
export const PROTOCOL_VERSION = 1;
