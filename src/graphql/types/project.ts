import { Field, ObjectType } from 'type-graphql';
import type { Visibility } from '../../domain/vocabulary.js';
import { VisibilityEnum } from './enums.js';
import { NodeInterface } from './node.js';
import { SafeIntScalar, TimeScalar } from './scalars.js';

@ObjectType('Project', { implements: NodeInterface, simpleResolvers: true })
export class ProjectType {
  __typename!: 'Project';

  id!: string;

  @Field(() => SafeIntScalar, { description: 'The numeric id REST uses.' })
  databaseId!: number;

  @Field(() => String)
  name!: string;

  @Field(() => String)
  path!: string;

  @Field(() => String, { description: '`group/subgroup/project`.' })
  fullPath!: string;

  @Field(() => String)
  description!: string;

  @Field(() => VisibilityEnum)
  visibility!: Visibility;

  @Field(() => String)
  webUrl!: string;

  @Field(() => TimeScalar)
  createdAt!: number;
}
