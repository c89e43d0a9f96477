import { readFile } from 'node:fs/promises';
import { approvalsFor } from './contract/schema.js';
import type { CaseApprovals, RecipientContract } from './contract/schema.js';
import { parseRecipientContract } from './contract/load.js';
import { PacketError, PolicyStoreUnavailableError } from './errors.js';

/**
 * Where recipient contracts and the case owner's approvals live. Implementations throw
 * `PolicyStoreUnavailableError` when they cannot answer; callers fail closed.
 */
export interface PolicyStore {
  /** The contract of `version`, or the current one. */
  getContract(version?: string): Promise<RecipientContract>;
  /** The roles → fields approvals that apply to one case of one tenant. */
  getApprovals(tenant: string, caseId: string): Promise<CaseApprovals>;
}

export interface FilePolicyStoreOptions {
  /** Path of the recipient contract YAML file (read on every call, so edits apply at once). */
  file: string;
}

/**
 * A policy store over one contract YAML file. An unreadable, missing or invalid file, or a
 * version that does not match, is `PolicyStoreUnavailableError`.
 */
export function createFilePolicyStore(options: FilePolicyStoreOptions): PolicyStore {
  const load = async (): Promise<RecipientContract> => {
    let text: string;
    try {
      text = await readFile(options.file, 'utf8');
    } catch (err) {
      throw new PolicyStoreUnavailableError(
        `policy store unavailable: cannot read ${options.file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
        { cause: err },
      );
    }
    try {
      return parseRecipientContract(text, { file: options.file });
    } catch (err) {
      const detail = err instanceof PacketError ? err.message : String(err);
      throw new PolicyStoreUnavailableError(`policy store unavailable: ${detail}`, { cause: err });
    }
  };
  return {
    async getContract(version) {
      const contract = await load();
      if (version !== undefined && contract.contract_version !== version) {
        throw new PolicyStoreUnavailableError(
          `policy store unavailable: contract version ${version} not found (the store holds ${contract.contract_version})`,
        );
      }
      return contract;
    },
    async getApprovals(tenant, caseId) {
      return approvalsFor(await load(), tenant, caseId);
    },
  };
}

/** A policy store over a contract already in memory (tests, embedding). */
export function createStaticPolicyStore(contract: RecipientContract): PolicyStore {
  return {
    async getContract(version) {
      if (version !== undefined && contract.contract_version !== version) {
        throw new PolicyStoreUnavailableError(
          `policy store unavailable: contract version ${version} not found (the store holds ${contract.contract_version})`,
        );
      }
      return contract;
    },
    async getApprovals(tenant, caseId) {
      return approvalsFor(contract, tenant, caseId);
    },
  };
}
