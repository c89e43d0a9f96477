import type { CallModelInputFilter, CallModelInputFilterArgs, ModelInputData } from '@openai/agents';
import type { PreparedPacketHandoff } from '../gate.js';

/** Records the packet boundary from inside a plain Agents SDK run. */
export interface PacketBoundaryFilter {
  /** Pass as `packetHandoff(…, { onPrepared })`. */
  onPrepared(prepared: PreparedPacketHandoff): void;
  /** Pass as the run's (or Runner's) `callModelInputFilter`: it records the next model call's input. */
  callModelInputFilter: CallModelInputFilter;
}

/**
 * Connects `packetHandoff` to the SDK's model-call hook: the first model call after a packet was
 * prepared is the recipient's, and its exact input is digested into a `packet_boundary` record.
 * A boundary violation throws, so the call is not made.
 */
export function createPacketBoundaryFilter(): PacketBoundaryFilter {
  let pending: PreparedPacketHandoff | undefined;
  return {
    onPrepared(prepared) {
      pending = prepared;
    },
    callModelInputFilter: async ({ modelData }: CallModelInputFilterArgs): Promise<ModelInputData> => {
      const crossing = pending;
      if (crossing) {
        pending = undefined;
        await crossing.onRecipientModelRequest({ input: modelData.input });
      }
      return modelData;
    },
  };
}
