import type { ServerState } from '../../../../shared/api/catalog';
import { ApiError } from '../../../errors';
import { logEvent } from '../../../observability/log';
import type { GuardedRead, ReadGuard } from '../registry';
import { SkillIntegrityError, verifySkillFile } from './skill-integrity';
import { skillFileOf } from './skills';

/**
 * The Skills rules of a resource read (ServerLink.read asks the registry; it names no extension): a file of a skill
 * the operator does not offer here is never read, whatever its path; a file a skill does not list is refused; a
 * skill's listed file is checked against its entry on every copy served (digest, size, frontmatter) and read as sent,
 * never converted — and a copy that fails the check is not used: the server's skill list is fetched again and the
 * reader is told why.
 */
export function skillReadGuard({ server, state, uri, withheld, changed }: GuardedRead): ReadGuard | undefined {
  const skill = withheld(uri);
  if (skill) {
    throw new ApiError(
      404,
      'skill_not_found',
      `${uri} belongs to skill "${skill.frontmatter.name}" of MCP server "${server}", which is not offered here; its files are not read`,
    );
  }
  const file = skillFileOf(state as Pick<ServerState, 'id' | 'skills'>, uri);
  if (!file) return undefined;
  if (file.unlisted) {
    throw new ApiError(
      404,
      'skill_file_not_listed',
      `${uri} is not one of the files skill "${file.skill.frontmatter.name}" of MCP server "${server}" lists; read only its listed files`,
    );
  }
  return {
    raw: true,
    verify: (contents) => verifySkillFile({ ...file, uri }, contents),
    failure: (error) => {
      if (!(error instanceof SkillIntegrityError)) return undefined;
      logEvent('skill.integrity', { server, skill: file.skill.frontmatter.name, uri, reason: error.reason }, 'warn');
      changed(['skills']);
      return new ApiError(
        502,
        'skill_integrity',
        `Skill "${file.skill.frontmatter.name}" of MCP server "${server}": ${error.message}. The file was not used; the server's skill list is being fetched again.`,
      );
    },
  };
}
