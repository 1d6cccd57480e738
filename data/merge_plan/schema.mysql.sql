-- Merge-plan fixture (make_shards.py): the game shard's schema as MariaDB holds it.
CREATE TABLE player (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
                     name VARCHAR(12) NOT NULL UNIQUE, uid VARCHAR(20) NOT NULL,
                     level INT NOT NULL)
  ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE guild (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
                    name VARCHAR(16) NOT NULL UNIQUE, leader_id INT NOT NULL,
                    uid VARCHAR(20) NOT NULL,
                    CONSTRAINT fk_guild_leader FOREIGN KEY (leader_id) REFERENCES player (id))
  ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE guild_member (guild_id INT NOT NULL, player_id INT NOT NULL, joined BIGINT NOT NULL,
                           PRIMARY KEY (guild_id, player_id),
                           CONSTRAINT fk_member_guild FOREIGN KEY (guild_id) REFERENCES guild (id))
  ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE item_template (id INT NOT NULL PRIMARY KEY, name VARCHAR(32) NOT NULL,
                            power INT NOT NULL)
  ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE item (id BIGINT NOT NULL PRIMARY KEY, owner_id INT NOT NULL,
                   template_id INT NOT NULL, uid VARCHAR(20) NOT NULL)
  ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE mail (id BIGINT NOT NULL PRIMARY KEY, to_player INT NOT NULL,
                   subject VARCHAR(100) NOT NULL, uid VARCHAR(20) NOT NULL)
  ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE player_slot (player_id INT NOT NULL, slot INT NOT NULL, item_id BIGINT,
                          PRIMARY KEY (player_id, slot))
  ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
