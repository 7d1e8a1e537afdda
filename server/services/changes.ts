// The store's change events, for subscriptions and the CLI's foreground jobs. Apart from
// kernel.ts, which every `sm` command loads at start: this pulls in the store module, which no
// short command needs.
export { type ChangeEvent, hearOtherNodes, onChange } from '../core/kernel/store.ts';
